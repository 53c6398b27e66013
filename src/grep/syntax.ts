/**
 * GNU grep's pattern dialects, translated to RE2 syntax so that `skim grep` matches them in time
 * linear in the line (re2js; see linePattern.ts for why no backtracking matcher may see a user's
 * pattern). The translation follows GNU grep 3.x in a UTF-8 locale, token by token:
 *
 * - basic (BRE, the default): `\|`, `\+`, `\?`, `\(`, `\)`, `\{m,n\}` are operators and bare
 *   `|`, `+`, `?`, `(`, `)`, `{`, `}` are literals; `*` is literal at the start of the pattern or
 *   of a group or alternative; `^` is an anchor only at such a start and `$` only at the end of the
 *   pattern, of a group or of an alternative (elsewhere both are literals).
 * - extended (ERE, -E): the operators without backslashes; `^` and `$` are anchors anywhere; a
 *   repetition operator with nothing before it applies to nothing (GNU grep warns and ignores it);
 *   a `{` that does not begin a valid interval, and an unmatched `)`, are literals.
 * - both: bracket expressions with POSIX classes (`[[:alpha:]]`), equivalence classes and
 *   collating symbols of one character, no escapes inside brackets (`[\]` holds a backslash);
 *   GNU's `\w \W \s \S \b \B \< \> \` \'`; any other escaped character is itself (`\d` is `d`,
 *   as in grep). Back-references (`\1`) have no linear-time match: they are refused.
 * - perl (-P): RE2 already speaks most of it, and re2js adds lookbehind (`(?<=...)`, `(?<!...)`)
 *   in linear time; lookahead, back-references, atomic groups, possessive quantifiers, recursion,
 *   conditionals, `\K` and verbs are refused by name, and a few escapes RE2 lacks
 *   (`\h \H \v \V \R \N \e \cX \Z`) are rewritten. Groups do not capture (nothing refers to them).
 * - fixed (-F): each pattern is a literal string.
 *
 * Known approximations (documented in docs/grep.md): `\b \B \< \>` see ASCII word characters
 * on the side after the position (RE2 has no lookahead), so next to a non-ASCII letter or digit they
 * may differ from GNU grep (which is itself not consistent there); character classes beyond ASCII
 * follow Unicode categories, close to glibc's but not identical for every code point.
 */
import { SkimError } from '../core/errors.js';

export type GrepDialect = 'basic' | 'extended' | 'fixed' | 'perl';

/** A pattern GNU grep would refuse too (exit 2), or one RE2 cannot match in linear time. */
export class GrepPatternError extends SkimError {
  constructor(message: string) {
    super(message, 'EUSAGE');
    this.name = 'GrepPatternError';
  }
}

/** GNU grep's word constituents in a UTF-8 locale (`_` and [[:alnum:]]), as an RE2 class body. */
export const WORD_CHARS = '\\p{L}\\p{Nl}\\p{Nd}_';
/** PCRE's (ASCII) word constituents, used by -P -w as GNU grep 3.8 does. */
export const PERL_WORD_CHARS = '0-9A-Za-z_';

const ALPHA = '\\p{L}\\p{Nl}';
const ALNUM = '\\p{L}\\p{Nl}\\p{Nd}';
const PUNCT = '\\p{P}\\p{S}\\p{M}\\p{No}\\p{Cf}\\x{a0}\\x{2007}\\x{202f}';
const SPACE = '\\t\\n\\v\\f\\r \\x{1680}\\x{2000}-\\x{2006}\\x{2008}-\\x{200a}\\x{2028}\\x{2029}\\x{205f}\\x{3000}';
const BLANK = '\\t \\x{1680}\\x{2000}-\\x{2006}\\x{2008}-\\x{200a}\\x{205f}\\x{3000}';
/** POSIX classes as RE2 class bodies (ASCII exactly as glibc; beyond ASCII by Unicode category). */
const POSIX_CLASSES: Record<string, string> = {
  alpha: ALPHA,
  digit: '0-9',
  alnum: ALNUM,
  upper: '\\p{Lu}',
  lower: '\\p{Ll}',
  space: SPACE,
  blank: BLANK,
  cntrl: '\\x00-\\x1f\\x7f-\\x{9f}\\x{2028}\\x{2029}',
  punct: PUNCT,
  graph: ALNUM + PUNCT,
  print: `${ALNUM}${PUNCT} \\x{1680}\\x{2000}-\\x{2006}\\x{2008}-\\x{200a}\\x{205f}\\x{3000}`,
  xdigit: '0-9A-Fa-f',
};

/**
 * `\<` and `\>`: RE2's `\b` (ASCII word characters) plus a lookbehind on the character before
 * (re2js matches captureless lookbehinds in linear time): a start of word has no word character
 * before it, an end of word has one.
 */
const WORD_START = `(?<![${WORD_CHARS}])\\b`;
const WORD_END = '(?<=[0-9A-Za-z_])\\b';

/**
 * What no atom of a translated pattern matches, not even `.` or a negated class: the stand-in for
 * bytes that are not UTF-8, which match nothing in GNU grep (search.ts puts it in their place).
 */
export const NO_MATCH = '\\n';

/** GNU's RE_DUP_MAX: larger repetition counts make grep say "Regular expression too big". */
const GNU_DUP_MAX = 32767;
/** RE2's limit on a repetition count. */
const RE2_DUP_MAX = 1000;

const BACKREF_MESSAGE = 'back-references (\\1 ... \\9) are not supported: skim grep matches in linear time (RE2), which cannot express them';

/**
 * One pattern (no newlines: those separate patterns) in RE2 syntax, as GNU grep's two matchers read
 * it (see translatePosix): `dfa` decides alone unless `regex` is consulted too (-w, -o, or
 * `consultRegex`), and then a line is selected when both match. For -F and -P both are the same.
 */
export interface GrepPatternReadings {
  dfa: string;
  regex: string;
  /** dfa.c cannot decide this pattern alone (word anchors, most bracket expressions): regex is consulted. */
  consultRegex: boolean;
}

export function grepPatternReadings(pattern: string, dialect: GrepDialect, ignoreCase = false): GrepPatternReadings {
  if (dialect === 'fixed') {
    const re = Array.from(pattern, (ch) => literal(ch.codePointAt(0)!)).join('');
    return { dfa: re, regex: re, consultRegex: false };
  }
  if (dialect === 'perl') {
    const re = translatePerl(pattern);
    return { dfa: re, regex: re, consultRegex: false };
  }
  const ere = dialect === 'extended';
  const dfa = translatePosix(pattern, ere, ignoreCase, false);
  const regex = translatePosix(pattern, ere, ignoreCase, true);
  return { dfa: dfa.re, regex: regex.re, consultRegex: dfa.consultRegex };
}

// --- emitting RE2 text ---

const RE2_SPECIAL = new Set(Array.from('\\.+*?()|[]{}^$'));

/** One character as an RE2 literal outside brackets. */
function literal(cp: number): string {
  if (cp >= 0x20 && cp < 0x7f) {
    const ch = String.fromCharCode(cp);
    return RE2_SPECIAL.has(ch) ? `\\${ch}` : ch;
  }
  return `\\x{${cp.toString(16)}}`;
}

/** One character inside an RE2 bracket expression. */
function classChar(cp: number): string {
  const isAlnum = (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
  return isAlnum ? String.fromCharCode(cp) : `\\x{${cp.toString(16)}}`;
}

// --- basic and extended regular expressions (GNU flavour) ---
//
// GNU grep compiles a pattern twice: with dfa.c, which does most of the matching, and with glibc's
// regex, which checks the syntax and is consulted whenever dfa.c cannot decide alone (word anchors,
// most bracket expressions in UTF-8, -w, -o). The two read a few corner cases differently: a repetition right after an anchor
// (dfa.c repeats the anchor; regex takes the operator as a literal in BRE and skips it in ERE) and
// a `{` with nothing before it in an ERE (dfa.c: a valid interval repeats nothing, an invalid one
// is a literal; regex skips the `{`). A line is then selected when both match, and -o prints what
// regex finds. translatePosix gives dfa.c's reading, or regex's when `narrow`.

interface Piece {
  re: string;
  /** atom: takes a quantifier as it is; anchor/quantified: wrapped in (?:) first. */
  kind: 'atom' | 'anchor' | 'quantified';
}

interface Frame {
  alts: string[];
  pieces: Piece[];
}

type LastToken = 'END' | 'LPAREN' | 'OR' | 'OTHER';

interface PosixResult {
  re: string;
  /**
   * In a UTF-8 locale dfa.c leaves word anchors (\b \B \< \>) and bracket expressions other than
   * plain ASCII characters and [:digit:] (negated ones, ranges, other classes) to regex.
   */
  consultRegex: boolean;
}

/** The BRE/ERE translator's state: the pattern and where it reads, how to read it, dfa.c's lexer state, and the groups open. */
interface PosixState {
  s: string[];
  i: number;
  ere: boolean;
  ignoreCase: boolean;
  /** regex's reading rather than dfa.c's. */
  narrow: boolean;
  /** dfa.c's laststart: a repetition here would have nothing to repeat. */
  laststart: boolean;
  /** dfa.c's lasttok. */
  lasttok: LastToken;
  parens: number;
  consultRegex: boolean;
  /** The open groups, innermost last (the whole pattern first). */
  stack: Frame[];
  /**
   * Right after an anchor, glibc's regex takes no repetition: `*` `\+` `\?` `\{` are literals in
   * BRE, and `*` `+` `?` `{` are skipped in ERE; dfa.c repeats the anchor.
   */
  afterAnchor: boolean;
}

function translatePosix(pattern: string, ere: boolean, ignoreCase: boolean, narrow: boolean): PosixResult {
  const st: PosixState = {
    s: Array.from(pattern),
    i: 0,
    ere,
    ignoreCase,
    narrow,
    laststart: true,
    lasttok: 'END',
    parens: 0,
    consultRegex: false,
    stack: [{ alts: [], pieces: [] }],
    afterAnchor: false,
  };
  while (st.i < st.s.length) posixToken(st);
  if (st.parens > 0) throw new GrepPatternError('Unmatched ( or \\(');
  endBranch(st.stack[0]);
  return { re: st.stack[0].alts.join('|'), consultRegex: st.consultRegex };
}

const topFrame = (st: PosixState): Frame => st.stack[st.stack.length - 1];

function posixAtom(st: PosixState, re: string): void {
  topFrame(st).pieces.push({ re, kind: 'atom' });
  st.laststart = false;
  st.lasttok = 'OTHER';
}

function posixAnchor(st: PosixState, re: string): void {
  topFrame(st).pieces.push({ re, kind: 'anchor' });
  st.lasttok = 'OTHER';
  st.afterAnchor = true;
}

function posixQuantify(st: PosixState, q: string): void {
  st.lasttok = 'OTHER';
  const pieces = topFrame(st).pieces;
  const last = pieces[pieces.length - 1];
  if (!last) return; // ERE: "* at start of expression" repeats nothing, as in GNU grep
  last.re = last.kind === 'atom' ? `${last.re}${q}` : `(?:${last.re})${q}`;
  last.kind = 'quantified';
}

function endBranch(f: Frame): void {
  f.alts.push(f.pieces.map((p) => p.re).join(''));
}

/** An operator spelled `\x` in BRE and `x` in ERE. */
const isOp = (st: PosixState, backslash: boolean): boolean => backslash !== st.ere;

/** One token at s[i]: an operator, or a character (escaped or not) as a literal. */
function posixToken(st: PosixState): void {
  const { s } = st;
  let c = s[st.i++];
  let backslash = false;
  if (c === '\\') {
    if (st.i >= s.length) throw new GrepPatternError('Trailing backslash');
    backslash = true;
    c = s[st.i++];
  }
  const after = st.afterAnchor;
  st.afterAnchor = false;
  const repetition = c === '*' ? !backslash : (c === '+' || c === '?' || c === '{') && isOp(st, backslash);
  if (repetition && after && st.narrow && (st.ere || !st.laststart)) {
    if (st.ere) {
      st.afterAnchor = true; // skipped; what follows is read as if the operator were not there
      return;
    }
    posixAtom(st, literal(c.codePointAt(0)!)); // (dfa.c's reading reports a bad BRE interval)
    return;
  }
  if (!posixOperator(st, c, backslash, after)) posixAtom(st, literal(c.codePointAt(0)!));
}

const wordAnchor = (st: PosixState, re: string): void => {
  st.consultRegex = true;
  posixAnchor(st, re);
};

/** GNU's escapes of a sign or letter (`\<`, `\w`, ...), by the character after the backslash. */
const POSIX_ESCAPES: Record<string, (st: PosixState) => void> = {
  '`': (st) => posixAnchor(st, '^'),
  "'": (st) => posixAnchor(st, '$'),
  '<': (st) => wordAnchor(st, WORD_START),
  '>': (st) => wordAnchor(st, WORD_END),
  b: (st) => wordAnchor(st, '\\b'),
  B: (st) => wordAnchor(st, '\\B'),
  w: (st) => posixAtom(st, `[${WORD_CHARS}]`),
  W: (st) => posixAtom(st, `[^${WORD_CHARS}${NO_MATCH}]`),
  s: (st) => posixAtom(st, `[${SPACE}]`),
  S: (st) => posixAtom(st, `[^${SPACE}${NO_MATCH}]`),
};

/** `c` (after a backslash when `backslash`) as an operator; false when it is a literal here. */
function posixOperator(st: PosixState, c: string, backslash: boolean, after: boolean): boolean {
  if (backslash && c >= '1' && c <= '9') throw new GrepPatternError(BACKREF_MESSAGE);
  if (backslash && Object.hasOwn(POSIX_ESCAPES, c)) {
    POSIX_ESCAPES[c](st);
    return true;
  }
  switch (c) {
    case '^':
      if (backslash || !(st.ere || st.lasttok === 'END' || st.lasttok === 'LPAREN' || st.lasttok === 'OR')) return false;
      posixAnchor(st, '^');
      return true;
    case '$': {
      if (backslash) return false;
      const { s, i } = st;
      const next = s[i];
      const closes = st.ere ? next === ')' || next === '|' : next === '\\' && (s[i + 1] === ')' || s[i + 1] === '|');
      if (!(st.ere || i >= s.length || closes)) return false;
      posixAnchor(st, '$');
      return true;
    }
    case '?':
    case '+':
    case '*':
      if ((c === '*' ? backslash : !isOp(st, backslash)) || (!st.ere && st.laststart)) return false;
      posixQuantify(st, c);
      return true;
    case '{':
      return posixInterval(st, backslash, after);
    case '|':
    case '(':
    case ')':
      return isOp(st, backslash) && posixGroupOperator(st, c);
    case '.':
      if (backslash) return false;
      posixAtom(st, '.');
      return true;
    case '[': {
      if (backslash) return false;
      const br = parseBracket(st.s, st.i, st.ignoreCase);
      st.i = br.next;
      if (br.complex) st.consultRegex = true;
      posixAtom(st, br.re);
      return true;
    }
    default:
      return false;
  }
}

const intervalText = (min: number, max: number): string => (max < 0 ? `{${min},}` : max === min ? `{${min}}` : `{${min},${max}}`);

/** `{` (or `\{`) at s[i - 1]: an interval as dfa.c or regex reads it; false when it is a literal here. */
function posixInterval(st: PosixState, backslash: boolean, after: boolean): boolean {
  const { s, ere } = st;
  if (!isOp(st, backslash) || (!ere && st.laststart)) return false; // BRE: a literal "{" at the start
  if (ere && st.laststart) {
    // Nothing to repeat. dfa.c repeats nothing by a valid interval and reads an invalid one
    // as a literal "{"; regex skips the "{" alone.
    if (st.narrow) return true;
    const iv = dfaInterval(s, st.i, false);
    if (!iv) return false;
    checkCounts(iv.min, iv.max);
    st.i = iv.next;
    st.lasttok = 'OTHER';
    return true;
  }
  if (after) {
    // dfa.c repeats the anchor; regex, which would skip the "{", reports nothing here.
    const dv = dfaInterval(s, st.i, !ere);
    if (!dv) {
      if (ere) return false;
      throw new GrepPatternError(intervalError(s, st.i));
    }
    checkCounts(dv.min, dv.max);
    st.i = dv.next;
    posixQuantify(st, intervalText(dv.min, dv.max));
    st.laststart = false;
    return true;
  }
  const iv = regexInterval(s, st.i, !ere);
  if (iv === 'literal') return false;
  if (!ere && !dfaInterval(s, st.i, true)) throw new GrepPatternError(intervalError(s, st.i));
  st.i = iv.next;
  checkCounts(iv.min, iv.max);
  posixQuantify(st, intervalText(iv.min, iv.max));
  st.laststart = false;
  return true;
}

/** An alternation or a group's parenthesis; false for an ERE `)` that closes nothing (a literal). */
function posixGroupOperator(st: PosixState, c: '|' | '(' | ')'): boolean {
  if (c === '|') {
    const f = topFrame(st);
    endBranch(f);
    f.pieces = [];
    st.laststart = true;
    st.lasttok = 'OR';
    return true;
  }
  if (c === '(') {
    st.parens++;
    st.stack.push({ alts: [], pieces: [] });
    st.laststart = true;
    st.lasttok = 'LPAREN';
    return true;
  }
  if (st.parens === 0) {
    if (st.ere) return false; // RE_UNMATCHED_RIGHT_PAREN_ORD: a literal ")"
    throw new GrepPatternError('Unmatched ) or \\)');
  }
  st.parens--;
  const f = st.stack.pop()!;
  endBranch(f);
  posixAtom(st, `(?:${f.alts.join('|')})`);
  return true;
}

function checkCounts(min: number, max: number): void {
  if (min > GNU_DUP_MAX || max > GNU_DUP_MAX) throw new GrepPatternError('Regular expression too big');
  if (min > RE2_DUP_MAX || max > RE2_DUP_MAX) {
    throw new GrepPatternError(`repetition count over ${RE2_DUP_MAX} (the most RE2 allows): {${min},${max < 0 ? '' : max}}`);
  }
}

/** glibc's message for a BRE interval that is not one. */
function intervalError(s: string[], i: number): string {
  return s.slice(i).join('').includes('\\}') ? 'Invalid content of \\{\\}' : 'Unmatched \\{';
}

/**
 * An interval after `{` (or `\{`) at s[i], as dfa.c reads it: {M}, {M,}, {,N}, {,} and {M,N}.
 * null when it is not a valid interval (dfa.c: a literal in ERE, an error in BRE).
 */
function dfaInterval(s: string[], i: number, bre: boolean): { min: number; max: number; next: number } | null {
  const n = s.length;
  const digit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';
  let p = i;
  let min = -1;
  let max = -1;
  for (; p < n && digit(s[p]); p++) min = min < 0 ? Number(s[p]) : Math.min(GNU_DUP_MAX + 1, min * 10 + Number(s[p]));
  if (p < n) {
    if (s[p] !== ',') max = min;
    else {
      if (min < 0) min = 0;
      while (++p < n && digit(s[p])) max = max < 0 ? Number(s[p]) : Math.min(GNU_DUP_MAX + 1, max * 10 + Number(s[p]));
    }
  }
  if (bre) {
    if (!(p < n && s[p] === '\\')) return null;
    p++;
  }
  if (!(p < n && s[p] === '}')) return null;
  p++;
  if (!(min >= 0 && (max < 0 || min <= max))) return null;
  return { min, max, next: p };
}

/**
 * An interval after `{` (or `\{`) at s[i], as glibc's regex reads it (parse_dup_op): valid, a
 * literal "{" (ERE only, RE_INVALID_INTERVAL_ORD), or an error that GNU grep reports ("x{}",
 * "x{2,1}" and "x{1,2,3}" are errors even in ERE).
 */
function regexInterval(s: string[], i: number, bre: boolean): { min: number; max: number; next: number } | 'literal' {
  const n = s.length;
  type Tok = { kind: 'END' | 'CLOSE' | 'CHAR'; ch: string; next: number };
  const token = (k: number): Tok => {
    if (k >= n) return { kind: 'END', ch: '', next: k };
    if (s[k] === '\\') {
      if (k + 1 >= n) return { kind: 'END', ch: '', next: n };
      if (bre && s[k + 1] === '}') return { kind: 'CLOSE', ch: '}', next: k + 2 };
      return { kind: 'CHAR', ch: `\\${s[k + 1]}`, next: k + 2 };
    }
    if (!bre && s[k] === '}') return { kind: 'CLOSE', ch: '}', next: k + 1 };
    return { kind: 'CHAR', ch: s[k], next: k + 1 };
  };
  let k = i;
  let last: Tok = { kind: 'END', ch: '', next: i };
  const fetchNumber = (): number => {
    let num = -1;
    for (;;) {
      last = token(k);
      k = last.next;
      if (last.kind === 'END') return -2;
      if (last.kind === 'CLOSE' || last.ch === ',') return num;
      const d = last.ch.length === 1 && last.ch >= '0' && last.ch <= '9' ? Number(last.ch) : -1;
      num = d < 0 || num === -2 ? -2 : num === -1 ? d : Math.min(GNU_DUP_MAX + 1, num * 10 + d);
    }
  };
  const badbr = () => new GrepPatternError('Invalid content of \\{\\}');
  let min = fetchNumber();
  const startTok = last;
  if (min === -1) {
    if (startTok.ch === ',') min = 0;
    else throw badbr(); // "x{}"
  }
  let max = -2;
  if (min !== -2) max = startTok.kind === 'CLOSE' ? min : startTok.ch === ',' ? fetchNumber() : -2;
  if (min === -2 || max === -2) {
    if (!bre) return 'literal';
    throw last.kind === 'END' ? new GrepPatternError('Unmatched \\{') : badbr();
  }
  if ((max !== -1 && min > max) || last.kind !== 'CLOSE') throw badbr();
  if ((max === -1 ? min : max) > GNU_DUP_MAX) throw new GrepPatternError('Regular expression too big');
  return { min, max, next: k };
}

/**
 * A POSIX bracket expression starting after `[` at s[i]: `^` negates, a leading `]` is literal,
 * backslash is literal, `[:class:]`, `[=c=]`, `[.c.]`, ranges in code point order.
 */
function parseBracket(s: string[], i: number, ignoreCase: boolean): { re: string; next: number; complex: boolean } {
  const n = s.length;
  const unmatched = () => new GrepPatternError('Unmatched [, [^, [:, [., or [=');
  let j = i;
  let negate = false;
  if (s[j] === '^') {
    negate = true;
    j++;
  }
  const contentStart = j;
  const items: string[] = [];
  let sawClassOrRange = false;
  let sawComplex = false;
  /** `[.c.]` or `[=c=]` at s[k] (s[k] === '['): the character and where parsing resumes. */
  const collating = (k: number): { cp: number; next: number } => {
    const kind = s[k + 1];
    let e = k + 2;
    while (e + 1 < n && !(s[e] === kind && s[e + 1] === ']')) e++;
    if (e + 1 >= n) throw unmatched();
    const name = s.slice(k + 2, e);
    if (name.length !== 1) throw new GrepPatternError('Invalid collation character');
    return { cp: name[0].codePointAt(0)!, next: e + 2 };
  };
  let first = true;
  for (;;) {
    if (j >= n) throw unmatched();
    const c = s[j];
    if (c === ']' && !first) {
      j++;
      break;
    }
    first = false;
    let lo: number;
    if (c === '[' && (s[j + 1] === ':' || s[j + 1] === '=' || s[j + 1] === '.')) {
      const kind = s[j + 1];
      if (kind === ':') {
        let e = j + 2;
        while (e + 1 < n && !(s[e] === ':' && s[e + 1] === ']')) e++;
        if (e + 1 >= n) throw unmatched();
        let name = s.slice(j + 2, e).join('');
        if (ignoreCase && (name === 'upper' || name === 'lower')) name = 'alpha';
        const body = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
        if (body === undefined) throw new GrepPatternError('Invalid character class name');
        items.push(body);
        sawClassOrRange = true;
        if (name !== 'digit') sawComplex = true;
        j = e + 2;
        if (s[j] === '-' && s[j + 1] !== ']' && j + 1 < n) throw new GrepPatternError('Invalid range end');
        continue;
      }
      const col = collating(j);
      j = col.next;
      lo = col.cp;
      sawComplex = true;
      if (kind === '=') {
        items.push(classChar(lo));
        sawClassOrRange = true;
        if (s[j] === '-' && s[j + 1] !== ']' && j + 1 < n) throw new GrepPatternError('Invalid range end');
        continue;
      }
    } else {
      lo = c.codePointAt(0)!;
      j++;
    }
    if (s[j] === '-' && j + 1 < n && s[j + 1] !== ']') {
      j++;
      let hi: number;
      if (s[j] === '[' && s[j + 1] === '.') {
        const col = collating(j);
        hi = col.cp;
        j = col.next;
      } else if (s[j] === '[' && (s[j + 1] === ':' || s[j + 1] === '=')) {
        throw new GrepPatternError('Invalid range end');
      } else {
        hi = s[j].codePointAt(0)!;
        j++;
      }
      if (hi < lo) throw new GrepPatternError('Invalid range end');
      items.push(`${classChar(lo)}-${classChar(hi)}`);
      sawClassOrRange = true;
      sawComplex = true;
      // glibc: a range cannot start where one ends ([a-c-e])
      if (s[j] === '-' && j + 1 < n && s[j + 1] !== ']') throw new GrepPatternError('Invalid range end');
    } else items.push(classChar(lo));
  }
  // GNU grep refuses [:space:] written without the outer brackets.
  const content = s.slice(contentStart, j - 1);
  if (!sawClassOrRange && content.length >= 2 && content[0] === ':' && content[content.length - 1] === ':' && content.some((ch) => ch !== ':')) {
    throw new GrepPatternError('character class syntax is [[:space:]], not [:space:]');
  }
  // dfa.c (UTF-8) decides alone only for a list of ASCII characters and [:digit:].
  const complex = negate || sawComplex || content.some((ch) => ch.codePointAt(0)! > 0x7f);
  return { re: negate ? `[^${items.join('')}${NO_MATCH}]` : `[${items.join('')}]`, next: j, complex };
}

// --- Perl-compatible (-P) ---

const PERL_VERTICAL = '\\n\\v\\f\\r\\x{85}\\x{2028}\\x{2029}';
const PERL_HORIZONTAL = '\\t \\x{a0}\\x{1680}\\x{180e}\\x{2000}-\\x{200a}\\x{202f}\\x{205f}\\x{3000}';
const PERL_SPACE = '\\t\\n\\v\\f\\r ';

function refusePerl(what: string): never {
  throw new GrepPatternError(`${what} ${what.endsWith('s') ? 'are' : 'is'} not supported with -P: skim grep matches in linear time (RE2)`);
}

/** What the previous -P token was, for PCRE's rules on quantifiers: none (start, after `(` or `|`), an atom, a quantifier (a `+` now would be possessive), an assertion or an option setting (no quantifier may follow either). */
type PerlLast = 'none' | 'atom' | 'quantifier' | 'assertion' | 'option';

/** The -P translator's state: the pattern, where it reads, the RE2 text so far, and what PCRE's rules look back at. */
interface PerlState {
  s: string[];
  i: number;
  out: string;
  inClass: boolean;
  /** Index in s of the first item of the current class. */
  classStart: number;
  last: PerlLast;
}

function translatePerl(pattern: string): string {
  const st: PerlState = { s: Array.from(pattern), i: 0, out: '', inClass: false, classStart: 0, last: 'none' };
  while (st.i < st.s.length) {
    const c = st.s[st.i];
    if (c === '\\') perlEscape(st);
    else if (st.inClass) perlClassItem(st, c);
    else perlToken(st, c);
  }
  if (st.inClass) throw new GrepPatternError('missing terminating ] for character class');
  return st.out;
}

/** Append `text`, read one character, and remember what it was. */
function perlEmit(st: PerlState, text: string, last: PerlLast): void {
  st.out += text;
  st.i++;
  st.last = last;
}

/** Escapes PCRE has and RE2 cannot match (or has no linear-time match for): what the refusal names. */
const PERL_REFUSED_ESCAPES: Record<string, string> = { g: 'back-references', k: 'back-references', K: '\\K', G: '\\G', X: '\\X', C: '\\C' };

/** Escapes that stand for characters: their RE2 text inside a class and outside one (null: refused inside a class). */
const PERL_SET_ESCAPES: Record<string, { inClass: string | null; outside: string }> = {
  R: { inClass: null, outside: `(?:\\r\\n|[${PERL_VERTICAL}])` },
  h: { inClass: PERL_HORIZONTAL, outside: `[${PERL_HORIZONTAL}]` },
  v: { inClass: PERL_VERTICAL, outside: `[${PERL_VERTICAL}]` },
  H: { inClass: null, outside: `[^${PERL_HORIZONTAL}${NO_MATCH}]` },
  V: { inClass: null, outside: `[^${PERL_VERTICAL}${NO_MATCH}]` },
  W: { inClass: '\\W', outside: `[^${PERL_WORD_CHARS}${NO_MATCH}]` },
  D: { inClass: '\\D', outside: `[^0-9${NO_MATCH}]` },
  s: { inClass: PERL_SPACE, outside: `[${PERL_SPACE}]` },
  S: { inClass: '\\S', outside: `[^${PERL_SPACE}]` },
  e: { inClass: '\\x{1b}', outside: '\\x{1b}' },
};

/** A backslash escape at s[i]. */
function perlEscape(st: PerlState): void {
  const { s } = st;
  if (st.i + 1 >= s.length) throw new GrepPatternError('\\ at end of pattern');
  const d = s[st.i + 1];
  st.i += 2;
  if (d === 'Q') {
    perlQuoted(st);
    return;
  }
  if (d === 'E') return;
  if (d >= '1' && d <= '9') refusePerl('back-references');
  st.last = 'atom';
  if (Object.hasOwn(PERL_REFUSED_ESCAPES, d)) refusePerl(PERL_REFUSED_ESCAPES[d]);
  if (Object.hasOwn(PERL_SET_ESCAPES, d)) {
    const { inClass, outside } = PERL_SET_ESCAPES[d];
    if (!st.inClass) st.out += outside;
    else if (inClass === null) refusePerl(`\\${d} inside a character class`);
    else st.out += inClass;
    return;
  }
  st.out += perlOtherEscape(st, d);
}

/** `\Q...\E`: the characters between as literals. */
function perlQuoted(st: PerlState): void {
  const { s } = st;
  let e = st.i;
  while (e < s.length && !(s[e] === '\\' && s[e + 1] === 'E')) e++;
  const lit = s.slice(st.i, e);
  for (const ch of lit) st.out += st.inClass ? classChar(ch.codePointAt(0)!) : literal(ch.codePointAt(0)!);
  if (lit.length && !st.inClass) st.last = 'atom';
  st.i = e < s.length ? e + 2 : s.length;
}

/** The RE2 text of an escape `\d` (d read already) that is neither refused nor a set of characters. */
function perlOtherEscape(st: PerlState, d: string): string {
  const { s } = st;
  switch (d) {
    case 'b':
    case 'B':
    case 'A':
    case 'z':
    case 'Z':
      if (st.inClass) {
        if (d === 'b') return '\\x{8}'; // backspace inside a class
        throw new GrepPatternError(`\\${d} is not allowed inside a character class`);
      }
      st.last = 'assertion';
      return d === 'Z' ? '\\z' : `\\${d}`;
    case 'N':
      if (st.inClass) refusePerl('\\N inside a character class');
      if (s[st.i] === '{' && s[st.i + 1] === 'U' && s[st.i + 2] === '+') refusePerl('\\N{U+...}');
      return '[^\\n]';
    case 'c': {
      if (st.i >= s.length) throw new GrepPatternError('\\c at end of pattern');
      const x = s[st.i++].toUpperCase().codePointAt(0)! ^ 0x40;
      return `\\x{${x.toString(16)}}`;
    }
    case 'o': {
      const b = perlBraced(s, st.i);
      const cp = parseInt(b.slice(1, -1), 8);
      if (!b || !Number.isFinite(cp)) throw new GrepPatternError('\\o must be followed by {octal digits}');
      st.i += b.length;
      return `\\x{${cp.toString(16)}}`;
    }
    case 'x':
    case 'p':
    case 'P': {
      const b = perlBraced(s, st.i);
      st.i += b.length;
      return `\\${d}${b}`;
    }
    default:
      return `\\${d}`;
  }
}

/** `\x{...}` and the like: the escape's braces at s[k] with what they hold, as it is ('' when s[k] is no brace). */
function perlBraced(s: string[], k: number): string {
  if (s[k] !== '{') return '';
  const e = s.indexOf('}', k);
  if (e < 0) throw new GrepPatternError('missing } in an escape');
  return s.slice(k, e + 1).join('');
}

/** A character inside a class: a POSIX class `[:name:]` as it is, the closing `]`, or itself. */
function perlClassItem(st: PerlState, c: string): void {
  const { s, i } = st;
  if (c === '[' && s[i + 1] === ':') {
    const e = s.indexOf(']', i + 2);
    if (e > 0 && s[e - 1] === ':') {
      st.out += s.slice(i, e + 1).join('');
      st.i = e + 1;
      return;
    }
  }
  if (c === ']' && i > st.classStart) {
    st.inClass = false;
    st.last = 'atom';
  }
  st.out += c === '[' ? '\\[' : c;
  st.i++;
}

/** A character outside a class (not a backslash). */
function perlToken(st: PerlState, c: string): void {
  switch (c) {
    case '[':
      perlOpenClass(st);
      return;
    case '(':
      perlGroup(st);
      return;
    case ')':
      perlEmit(st, ')', 'atom');
      return;
    case '|':
      perlEmit(st, '|', 'none');
      return;
    case '^':
    case '$':
      perlEmit(st, c, 'assertion');
      return;
    case '*':
    case '+':
    case '?':
      if (c === '?' && st.last === 'quantifier' && /[*+?}]/.test(st.s[st.i - 1] ?? '')) {
        // lazy; a `+` after a lazy quantifier is an error in PCRE as well
        perlEmit(st, '?', 'quantifier');
        return;
      }
      perlQuantifierAllowed(st);
      perlEmit(st, c, 'quantifier');
      return;
    case '{': {
      const m = /^\{\d+(?:,\d*)?\}/.exec(st.s.slice(st.i, st.i + 16).join(''));
      if (!m) break;
      perlQuantifierAllowed(st);
      st.out += m[0];
      st.i += m[0].length;
      st.last = 'quantifier';
      return;
    }
    default:
      break;
  }
  perlEmit(st, c, 'atom');
}

function perlQuantifierAllowed(st: PerlState): void {
  if (st.last === 'assertion' || st.last === 'option') throw new GrepPatternError('quantifier does not follow a repeatable item');
  if (st.last === 'quantifier') refusePerl('possessive quantifiers');
}

/** `[` opening a class, with a leading `^` (negation) and a leading `]` (a literal). */
function perlOpenClass(st: PerlState): void {
  const { s } = st;
  st.inClass = true;
  st.out += '[';
  st.i++;
  if (s[st.i] === '^') {
    st.out += `^${NO_MATCH}`;
    st.i++;
  }
  if (s[st.i] === ']') {
    st.out += '\\]';
    st.i++;
  }
  st.classStart = st.i;
}

/** `(` at s[i]: a group (never capturing: nothing refers to groups), a lookbehind, a comment, inline flags, or a refused construct. */
function perlGroup(st: PerlState): void {
  const { s, i } = st;
  if (s[i + 1] === '*') refusePerl('backtracking control verbs (*...)');
  // groups need not capture: nothing refers to them, and lookbehinds must not hold captures
  if (s[i + 1] !== '?') {
    perlEmit(st, '(?:', 'none');
    return;
  }
  const rest = s.slice(i + 2, i + 5).join('');
  refuseUnsupportedGroup(rest);
  const open = (text: string, next: number, last: PerlLast = 'none') => {
    st.out += text;
    st.i = next;
    st.last = last;
  };
  if (rest.startsWith('<=') || rest.startsWith('<!')) {
    // re2js matches captureless lookbehinds in linear time
    open(`(?${rest.slice(0, 2)}`, i + 4);
    return;
  }
  if (rest.startsWith('#')) {
    const e = s.indexOf(')', i);
    if (e < 0) throw new GrepPatternError('missing ) after (?# comment');
    st.i = e + 1;
    return;
  }
  if (rest.startsWith("'") || rest.startsWith('<') || rest.startsWith('P<')) {
    // A named group: nothing refers to groups here (no back-references), so it need not capture.
    const close = rest.startsWith("'") ? "'" : '>';
    const e = s.indexOf(close, i + 3);
    if (e < 0) throw new GrepPatternError(`missing ${close} after the group name`);
    open('(?:', e + 1);
    return;
  }
  if (rest.startsWith(':')) {
    open('(?:', i + 3);
    return;
  }
  // inline flags: (?i) (?-i) (?i:...) and so on
  let e = i + 2;
  while (e < s.length && /[a-zA-Z^-]/.test(s[e])) e++;
  const flags = s.slice(i + 2, e).join('');
  const bad = flags.replace(/[imsU-]/g, '');
  if (bad) refusePerl(`the inline flag (?${bad})`);
  if (s[e] === ')') open(`(?${flags})`, e + 1, 'option');
  else open('(?', i + 2);
}

/** The `(?` constructs with no linear-time match (`rest`: the three characters after `(?`). */
function refuseUnsupportedGroup(rest: string): void {
  if (rest.startsWith('=') || rest.startsWith('!')) refusePerl('lookahead assertions');
  if (rest.startsWith('>')) refusePerl('atomic groups');
  if (rest.startsWith('|')) refusePerl('branch reset groups');
  if (rest.startsWith('(')) refusePerl('conditional groups');
  if (/^(?:R|[0-9]|[+-][0-9]|&|P>|P=)/.test(rest)) refusePerl('recursion and back-references');
}
