/**
 * The line matchers of `skim grep` (GNU grep's dialects translated to RE2: syntax.ts) and of
 * the MCP grep tool (RE2 syntax as it is), matched by the re2js port of RE2 in time linear in the
 * line. A JavaScript RegExp backtracks, so a pattern such as `(a+)+$` on a line of 100 a's and a b
 * never returns: the CLI hangs, and the MCP server stops answering every other call. RE2 is what
 * ripgrep and Go use: the same syntax as a JavaScript regular expression for everything a search
 * needs, without lookaround and backreferences.
 */
import { RE2JS } from 're2js';
import { SkimError } from '../core/errors.js';
import { type GrepDialect, GrepPatternError, grepPatternReadings, PERL_WORD_CHARS, WORD_CHARS } from './syntax.js';

export interface LinePatternOptions {
  ignoreCase?: boolean;
  /** The pattern is a literal string. */
  fixedStrings?: boolean;
}

export interface LinePattern {
  /** True when the pattern matches somewhere in the line. */
  test(line: string): boolean;
}

/** Compile a search pattern; a SkimError (EUSAGE) names what is wrong with it. */
export function compileLinePattern(pattern: string, opts: LinePatternOptions = {}): LinePattern {
  const source = opts.fixedStrings ? RE2JS.quote(pattern) : pattern;
  try {
    return RE2JS.compile(source, opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    const reason = (err as Error).message.replace(/^error parsing regexp: /, '');
    // Valid JavaScript that RE2 refuses (lookaround, \1, \u0041): say which syntax applies.
    const hint = isJavaScriptRegExp(source)
      ? ' (patterns use RE2 syntax, matched in linear time: no lookahead, lookbehind or backreferences; write \\x{41} for \\u0041)'
      : '';
    throw new SkimError(`invalid regular expression /${pattern}/: ${reason}${hint}`, 'EUSAGE');
  }
}

function isJavaScriptRegExp(source: string): boolean {
  try {
    new RegExp(source); // compiles only: nothing is matched
    return true;
  } catch {
    return false;
  }
}

export interface GrepMatcherOptions {
  /** GNU grep's pattern syntax: basic (default, BRE), extended (-E), fixed (-F), perl (-P). */
  dialect: GrepDialect;
  ignoreCase?: boolean;
  /** -w: the match must be a whole word (not preceded or followed by a word constituent). */
  wordRegexp?: boolean;
  /** -x: the match must be the whole line. */
  lineRegexp?: boolean;
  /** -o: matches are printed (GNU grep then reads corner cases of BRE/ERE as glibc's regex does too). */
  onlyMatching?: boolean;
}

export interface GrepMatcher {
  /** True when some pattern matches somewhere in the line (under -w / -x). */
  test(line: string): boolean;
  /**
   * The non-empty matches in the line, left to right, as grep -o finds them: leftmost-longest for
   * BRE/ERE/-F (POSIX), leftmost-first for -P (Perl); [start, end) in UTF-16 code units.
   */
  matches(line: string): Array<[number, number]>;
}

/**
 * Compile grep patterns (any one may match) in a GNU grep dialect into one RE2 program. A
 * GrepPatternError (EUSAGE) says what is wrong with a pattern, or what RE2 cannot do.
 */
export function compileGrepMatcher(patterns: string[], opts: GrepMatcherOptions): GrepMatcher {
  if (patterns.length === 0) return { test: () => false, matches: () => [] }; // -f /dev/null
  const readings = patterns.map((p) => grepPatternReadings(p, opts.dialect, opts.ignoreCase));
  // GNU grep consults glibc's regex besides dfa.c for -w, -o and where dfa.c cannot decide
  // alone; a line then has to match in both readings, and -o prints regex's matches (syntax.ts).
  const consultRegex = Boolean(opts.wordRegexp || opts.onlyMatching) || readings.some((r) => r.consultRegex);
  const program = (parts: string[]) => {
    const body = parts.length === 1 ? parts[0] : parts.map((r) => `(?:${r})`).join('|');
    if (opts.lineRegexp) return { source: `^(?:${body})$`, group: 0 };
    if (opts.wordRegexp) {
      // A word boundary is "start of line or a non-word character" before and "a non-word
      // character or end of line" after; RE2 has no lookahead, so the neighbours are consumed and
      // the match itself is group 1.
      const w = opts.dialect === 'perl' ? PERL_WORD_CHARS : WORD_CHARS;
      return { source: `(?:^|[^${w}])(${body})(?:[^${w}]|$)`, group: 1 };
    }
    return { source: body, group: 0 };
  };
  let flags = RE2JS.LOOKBEHINDS | (opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  if (opts.dialect !== 'perl') flags |= RE2JS.LONGEST_MATCH;
  const compile = (source: string) => {
    try {
      return RE2JS.compile(source, flags);
    } catch (err) {
      const reason = (err as Error).message.replace(/^error parsing regexp: /, '');
      throw new GrepPatternError(`invalid regular expression: ${reason}`);
    }
  };
  // Each pattern compiles alone first: wrapped or joined, an unbalanced -P pattern could swallow
  // the wrapper's brackets and still compile.
  if (opts.dialect === 'perl') for (const r of readings) compile(r.regex);
  const dfa = program(readings.map((r) => r.dfa));
  const regex = program(readings.map((r) => r.regex));
  const main = consultRegex ? regex : dfa;
  const re = compile(main.source);
  const also = consultRegex && dfa.source !== regex.source ? compile(dfa.source) : null;
  const group = main.group;
  return {
    test: (line) => re.test(line) && (also === null || also.test(line)),
    matches(line) {
      const out: Array<[number, number]> = [];
      const m = re.matcher(line);
      let p = 0;
      while (p <= line.length && m.find(p)) {
        const s = m.start(group);
        const e = m.end(group);
        if (e > s) {
          out.push([s, e]);
          p = e;
        } else {
          // An empty match: step one character on, there may be non-empty ones further.
          const cp = line.codePointAt(s);
          p = s + (cp !== undefined && cp > 0xffff ? 2 : 1);
        }
      }
      return out;
    },
  };
}
