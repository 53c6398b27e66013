/**
 * Indentation/bracket heuristics for languages without a grammar (kotlin, swift, yaml, markdown,
 * json, text, logs) and for inputs a grammar cannot take. Linear time; never throws.
 */

import { MAX_SCOPE_DEPTH } from '../limits.js';
import type { LineKind, LineSyntax, Scope, SyntaxIndex } from '../types.js';
import { linkAttachments } from './attachments.js';
import { pairGroup } from './clauseGroups.js';
import { enclosingScopesByRow } from './enclosingScopes.js';
import { type LanguageInfo, languageInfo } from './languages.js';
import { closerTest, detectIndentUnit, leadingWhitespace, stripLineComment } from './lineText.js';

const DEF_RE = /^(?:[\w@.<>()"', ]*?\s)?(?:fun|func|function|def|fn|sub|proc|method)\s+(?:<[^>]*>\s*)?(?:[\w.<>?]+\.)?([A-Za-z_$][\w$]*)/;
const TYPE_RE =
  /^(?:[\w@.()"', ]*?\s)?(class|interface|object|struct|enum|trait|protocol|extension|record|impl|namespace|module|companion object)\b\s*([A-Za-z_$][\w$.]*)?/;
const CONTROL_RE = /^(?:\}\s*)?(else\s+if|if|for|foreach|while|when|switch|try|catch|finally|do|else|match|loop|select|case|unless|until)\b/;
const CLAUSE_RE = /^(?:\}\s*)?(else|elif|elsif|catch|finally|except|rescue|ensure|case|default|when)\b/;
const IMPORT_RE = /^(?:import|package|using|use|#include|#import|require|require_relative|from\s+\S+\s+import|@import|include)\b/;
const DECORATOR_RE = /^(@[A-Za-z_][\w.]*(\(.*)?|#\[.*\]|\[[A-Z][\w.]*(\(.*\))?\])\s*$/;
const VAR_RE =
  /^(?:(?:private|public|protected|internal|override|open|lateinit|const|static|final|export|readonly)\s+)*(?:val|var|let|const)\s+([A-Za-z_$][\w$]*)/;
const IDENT_RE = /[A-Za-z_$][\w$]*/g;

const KEYWORDS = new Set(
  (
    'if else elif for while do return break continue switch case default try catch finally throw throws new delete ' +
    'class interface object struct enum fun func function def fn val var let const import package from as is in ' +
    'true false null nil None True False this self super public private protected internal static final override ' +
    'open abstract data sealed inline suspend lateinit companion when where typealias init get set by out vararg ' +
    'and or not end then begin module void int long short byte char float double boolean bool string unit any'
  ).split(' '),
);

const CODEISH = new Set(['kotlin', 'swift', 'scala', 'dart', 'css', 'json', 'sql', 'shell', 'lua', 'toml']);
const DEFINITION_KINDS = new Set(['function', 'method', 'class', 'interface', 'struct', 'enum', 'trait', 'impl', 'module', 'namespace', 'section']);

function typeKind(word: string): string {
  switch (word) {
    case 'interface':
    case 'protocol':
      return 'interface';
    case 'struct':
      return 'struct';
    case 'enum':
      return 'enum';
    case 'trait':
      return 'trait';
    case 'impl':
    case 'extension':
      return 'impl';
    case 'namespace':
      return 'namespace';
    case 'module':
      return 'module';
    default:
      return 'class';
  }
}

function indentWidth(line: string): number {
  let w = 0;
  for (const ch of line) {
    if (ch === ' ') w++;
    else if (ch === '\t') w += 4;
    else break;
  }
  return w;
}

/** Whether the language is code enough for bracket matching and identifier extraction. */
function codeish(info: LanguageInfo): boolean {
  return info.blockEnd === 'braces' || CODEISH.has(info.name) || info.hasGrammar;
}

export function buildFallbackIndex(lines: readonly string[], language: string): SyntaxIndex {
  try {
    return build(lines, language);
  } catch {
    return trivialIndex(lines, language);
  }
}

/** Every line its own statement, no scopes: the floor when even heuristics fail. */
export function trivialIndex(lines: readonly string[], language: string): SyntaxIndex {
  return {
    language,
    hasGrammar: false,
    parseOk: false,
    lines: lines.map((t, i) => ({
      kind: (String(t ?? '').trim() === '' ? 'blank' : 'code') as LineKind,
      depth: 0,
      scopes: [],
      defines: [],
      uses: [],
      stmtStart: i,
      stmtEnd: i,
      closers: [],
      pairs: [],
    })),
    scopes: [],
    definitions: new Map(),
    imports: new Map(),
  };
}

/** What every pass reads: the lines, the language, and whether it is code enough for brackets and identifiers. */
interface Source {
  lines: readonly string[];
  language: string;
  info: LanguageInfo;
  code: boolean;
  /** the line comment prefix, if any */
  prefix: string | null;
  /** indentation unit of the text (placeholder bodies) */
  unit: string;
}

function build(lines: readonly string[], language: string): SyntaxIndex {
  const info = languageInfo(language);
  const src: Source = { lines, language, info, code: codeish(info), prefix: info.lineComment, unit: detectIndentUnit(lines) };
  const br = scanBrackets(src);
  const scopes: Scope[] = [...braceScopes(src, br), ...indentScopes(src, br.isComment), ...markdownSections(src)];
  scopes.sort((a, b) => a.start - b.start || b.end - a.end);
  markMethods(scopes);
  const { out, definitions, imports, ownerOf } = lineFacts(src, br, scopes);
  pairClauses(out, ownerOf);
  const attachRows = Uint8Array.from(out, (ls) => (ls.kind === 'decorator' ? 1 : 0));
  return {
    language,
    hasGrammar: false,
    parseOk: false,
    lines: out,
    scopes,
    definitions,
    imports,
    attachedTo: linkAttachments(lines, out, language, attachRows),
  };
}

/** What bracket matching finds: statements, comment lines, closers, brace-delimited blocks. */
interface Brackets {
  stmtStart: Int32Array;
  stmtEnd: Int32Array;
  isComment: Uint8Array;
  /** per line: the lines closing brackets it opens */
  closers: number[][];
  braceScopes: { open: number; close: number }[];
  /** For a line whose first token is a closing `}`: the row of the matching `{`. */
  closesRowOf: Int32Array;
}

/**
 * Bracket matching with strings and comments skipped (code-ish languages only). Each stack entry
 * knows how many `{` are at or below it and the row of the lowest `(`/`[`, so a line reads both in
 * O(1) instead of scanning the stack (which costs O(depth) per line on deep nesting).
 */
function scanBrackets(src: Source): Brackets {
  const { lines, info, code, prefix } = src;
  const n = lines.length;
  const stmtStart = new Int32Array(n);
  const isComment = new Uint8Array(n);
  const closers: number[][] = Array.from({ length: n }, () => []);
  const braceScopes: { open: number; close: number }[] = [];
  const closesRowOf = new Int32Array(n).fill(-1);
  const stack: { ch: string; row: number; braces: number; parenRow: number }[] = [];
  let inBlock = false; // inside /* */ or <!-- -->
  const [bcOpen, bcClose] = info.blockComment ?? [null, null];
  for (let row = 0; row < n; row++) {
    const text = String(lines[row] ?? '');
    const trimmed = text.trim();
    // statement start: inside unclosed ( or [ from an earlier line
    const parenRow = stack.length ? stack[stack.length - 1]!.parenRow : -1;
    stmtStart[row] = parenRow >= 0 ? stmtStart[parenRow]! : row;
    if (inBlock || (prefix && trimmed.startsWith(prefix)) || (bcOpen && trimmed.startsWith(bcOpen))) isComment[row] = 1;
    if (!code && !bcOpen) continue;
    const limit = Math.min(text.length, 20000); // a 2 MB minified line is not worth scanning whole
    let quote = '';
    let firstToken = true;
    for (let i = 0; i < limit; i++) {
      const ch = text[i]!;
      if (inBlock) {
        if (bcClose && text.startsWith(bcClose, i)) {
          inBlock = false;
          i += bcClose.length - 1;
        }
        continue;
      }
      if (quote) {
        if (ch === '\\') i++;
        else if (ch === quote) quote = '';
        continue;
      }
      if (ch === ' ' || ch === '\t') continue;
      if (bcOpen && text.startsWith(bcOpen, i)) {
        inBlock = true;
        i += bcOpen.length - 1;
        continue;
      }
      if (!code) continue;
      if (prefix && text.startsWith(prefix, i)) break;
      if (ch === '"' || ch === '`' || (ch === "'" && info.name !== 'text')) {
        quote = ch;
        firstToken = false;
        continue;
      }
      if (ch === '(' || ch === '[' || ch === '{') {
        const below = stack[stack.length - 1];
        const parenRow = below && below.parenRow >= 0 ? below.parenRow : ch === '{' ? -1 : row;
        stack.push({ ch, row, braces: (below?.braces ?? 0) + (ch === '{' ? 1 : 0), parenRow });
      } else if (ch === ')' || ch === ']' || ch === '}') {
        const want = ch === ')' ? '(' : ch === ']' ? '[' : '{';
        for (let k = stack.length - 1; k >= 0 && k >= stack.length - 4; k--) {
          if (stack[k]!.ch === want) {
            const open = stack[k]!.row;
            // (scopes deeper than MAX_SCOPE_DEPTH are not tracked: every line lists its scopes)
            const deep = stack[k]!.braces > MAX_SCOPE_DEPTH;
            stack.length = k;
            if (open < row) {
              closers[open]!.push(row);
              if (want === '{' && !deep) braceScopes.push({ open, close: row });
            }
            if (firstToken && want === '{') closesRowOf[row] = open;
            break;
          }
        }
      }
      firstToken = false;
    }
    if (stack.length > 10000) stack.length = 0; // garbage input: stop tracking
  }
  return { stmtStart, stmtEnd: statementEnds(stmtStart), isComment, closers, braceScopes, closesRowOf };
}

/** Statement ends: the last line sharing a start. */
function statementEnds(stmtStart: Int32Array): Int32Array {
  const n = stmtStart.length;
  const stmtEnd = new Int32Array(n);
  for (let row = n - 1; row >= 0; row--) {
    const s = stmtStart[row]!;
    stmtEnd[row] = row === n - 1 || stmtStart[row + 1] !== s || row + 1 === s ? row : stmtEnd[row + 1]!;
    if (s !== row) stmtEnd[s] = Math.max(stmtEnd[s]!, stmtEnd[row]!);
  }
  for (let row = 0; row < n; row++) stmtEnd[row] = stmtEnd[stmtStart[row]!]!;
  return stmtEnd;
}

/** A scope from its rows and header text: kind and name from the header, decorators above it, body start and indent. */
function makeScope(src: Source, start: number, headerEnd: number, end: number, headerText: string): Scope {
  const { lines, info, code, prefix } = src;
  const t = stripLineComment(headerText.trim(), prefix);
  let kind = 'block';
  let name: string | undefined;
  const ty = TYPE_RE.exec(t);
  const df = ty ? null : DEF_RE.exec(t);
  const ct = CONTROL_RE.exec(t);
  if (ct && !ty) kind = ct[1]!.replace(/\s+/g, '_').replace('else_if', 'if');
  else if (ty) {
    kind = typeKind(ty[1]!);
    name = ty[2];
  } else if (df) {
    kind = 'function';
    name = df[1];
  } else if (info.indentScoped || !code) {
    const key = /^-?\s*([\w$.-]+)\s*:/.exec(t);
    if (key) name = key[1];
  }
  // decorators: annotation lines right above the header
  const decorators: number[] = [];
  for (let r = start - 1; r >= 0; r--) {
    const l = String(lines[r] ?? '').trim();
    if (DECORATOR_RE.test(l)) decorators.unshift(r);
    else break;
  }
  let bodyStart = Math.min(headerEnd + 1, end);
  while (bodyStart < end && String(lines[bodyStart] ?? '').trim() === '') bodyStart++;
  const bodyLine = String(lines[bodyStart] ?? '');
  return {
    kind,
    ...(name ? { name } : {}),
    start,
    headerEnd,
    bodyStart,
    end,
    decorators,
    bodyIndent: bodyStart > headerEnd && bodyLine.trim() ? leadingWhitespace(bodyLine) : leadingWhitespace(String(lines[start] ?? '')) + src.unit,
    isDefinition: DEFINITION_KINDS.has(kind) && !!name,
  };
}

/** Brace scopes: `{` ... `}` spanning lines; the header is the statement holding the `{`. */
function braceScopes(src: Source, br: Brackets): Scope[] {
  const { lines, prefix } = src;
  const { stmtStart, isComment } = br;
  const prevCode = (row: number): number => {
    for (let r = row - 1; r >= 0; r--) if (String(lines[r] ?? '').trim() !== '' && !isComment[r]) return r;
    return -1;
  };
  const scopes: Scope[] = [];
  for (const b of br.braceScopes) {
    const openText = String(lines[b.open] ?? '').trim();
    let start = stmtStart[b.open]!;
    if (openText.startsWith('{')) {
      // Allman style: the header is the line above, unless that line is a list/argument context
      const p = prevCode(b.open);
      const above = p >= 0 ? stripLineComment(String(lines[p] ?? '').trim(), prefix).trim() : '';
      if (p >= 0 && !/[,[({;}]$/.test(above)) start = stmtStart[p]!;
    }
    scopes.push(makeScope(src, start, b.open, b.close, String(lines[start] ?? '')));
  }
  return scopes;
}

/** Indentation scopes for indentation-scoped languages, and `:`-ended headers elsewhere (not markdown). */
function indentScopes(src: Source, isComment: Uint8Array): Scope[] {
  const { lines, info, code } = src;
  const scopes: Scope[] = [];
  if (!(info.indentScoped || !code) || info.name === 'markdown') return scopes;
  const n = lines.length;
  const nextCode = (row: number): number => {
    for (let r = row + 1; r < n && r < row + 200; r++) if (String(lines[r] ?? '').trim() !== '' && !isComment[r]) return r;
    return -1;
  };
  const open: { row: number; indent: number }[] = [];
  let lastCode = -1;
  const close = (upto: number, indent: number) => {
    while (open.length && open[open.length - 1]!.indent >= indent) {
      const o = open.pop()!;
      if (upto > o.row) scopes.push(makeScope(src, o.row, o.row, upto, String(lines[o.row] ?? '')));
    }
  };
  for (let row = 0; row < n; row++) {
    const text = String(lines[row] ?? '');
    if (text.trim() === '' || isComment[row]) continue;
    const ind = indentWidth(text);
    close(lastCode, ind);
    const next = nextCode(row);
    const opens = next >= 0 && indentWidth(String(lines[next] ?? '')) > ind && (info.indentScoped || /:\s*$/.test(text));
    if (opens && open.length < MAX_SCOPE_DEPTH) open.push({ row, indent: ind });
    lastCode = row;
  }
  close(lastCode, -1);
  return scopes;
}

/** Markdown sections: a heading up to the next heading of its level or above. */
function markdownSections(src: Source): Scope[] {
  const { lines, info } = src;
  const scopes: Scope[] = [];
  if (info.name !== 'markdown') return scopes;
  const n = lines.length;
  const heads: { row: number; level: number }[] = [];
  let fence = false;
  for (let row = 0; row < n; row++) {
    const t = String(lines[row] ?? '');
    if (/^\s*(```|~~~)/.test(t)) fence = !fence;
    const m = !fence && /^(#{1,6})\s+(.*)$/.exec(t);
    if (m) heads.push({ row, level: m[1]!.length });
  }
  for (let i = 0; i < heads.length; i++) {
    let end = n - 1;
    for (let j = i + 1; j < heads.length; j++) {
      if (heads[j]!.level <= heads[i]!.level) {
        end = heads[j]!.row - 1;
        break;
      }
    }
    while (end > heads[i]!.row && String(lines[end] ?? '').trim() === '') end--;
    if (end > heads[i]!.row) {
      const sc = makeScope(src, heads[i]!.row, heads[i]!.row, end, '');
      sc.kind = 'section';
      sc.name = String(lines[heads[i]!.row])
        .replace(/^#+\s*/, '')
        .trim()
        .slice(0, 200);
      sc.isDefinition = true;
      scopes.push(sc);
    }
  }
  return scopes;
}

/**
 * Functions inside class-like scopes (sorted by start) are methods: the latest definition before a
 * function that starts before it and reaches its end decides. A stack of the definitions that can
 * still decide (ends decreasing upwards: an earlier one that ends no later than a later one never
 * can) and a binary search replace a backward scan per function, which was quadratic.
 */
function markMethods(scopes: Scope[]): void {
  const defs: number[] = [];
  for (let i = 0, entered = 0; i < scopes.length; i++) {
    const s = scopes[i]!;
    for (; entered < i && scopes[entered]!.start < s.start; entered++) {
      const d = scopes[entered]!;
      if (!d.isDefinition) continue;
      while (defs.length && scopes[defs[defs.length - 1]!]!.end <= d.end) defs.pop();
      defs.push(entered);
    }
    if (s.kind !== 'function') continue;
    let lo = 0;
    let hi = defs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (scopes[defs[mid]!]!.end >= s.end) lo = mid;
      else hi = mid - 1;
    }
    const o = defs.length && scopes[defs[lo]!]!.end >= s.end ? scopes[defs[lo]!]! : null;
    if (o && /class|interface|struct|enum|trait|impl|module/.test(o.kind)) s.kind = 'method';
  }
}

/**
 * Per-line facts: kind, enclosing scopes, defined and used names, statement range, closers; the
 * names imports bind and the lines defining each name; for clause lines, the first line of their group.
 */
function lineFacts(src: Source, br: Brackets, scopes: Scope[]) {
  const { lines, language, code, prefix } = src;
  const { stmtStart, stmtEnd, isComment, closers, closesRowOf } = br;
  const n = lines.length;
  const bcOpen = src.info.blockComment?.[0] ?? null;
  const headerRows = new Set(scopes.filter((s) => s.isDefinition).map((s) => s.start));
  const decoratorRows = new Set(scopes.flatMap((s) => s.decorators));
  const definitions = new Map<string, number[]>();
  const imports = new Map<string, number>();
  const ownerOf = new Map<number, number>();
  const out: LineSyntax[] = new Array(n);
  const isCloser = closerTest(language);

  const enclosing = enclosingScopesByRow(scopes, n);
  const definitionAt = new Map<number, Scope>();
  for (const s of scopes) if (s.isDefinition && s.name && !definitionAt.has(s.start)) definitionAt.set(s.start, s);
  for (let row = 0; row < n; row++) {
    const text = String(lines[row] ?? '');
    const t = text.trim();
    const bare = stripLineComment(t, prefix).trim();
    const defines: string[] = [];
    const uses: string[] = [];
    let kind: LineKind;
    if (t === '') kind = 'blank';
    else if (isComment[row] || (bcOpen && t.startsWith(bcOpen))) kind = 'comment';
    else if (code && IMPORT_RE.test(bare) && enclosing[row]!.length === 0) {
      kind = 'import';
      for (const b of importBindings(bare)) if (!imports.has(b)) imports.set(b, row);
    } else if (headerRows.has(row)) kind = 'header';
    else if (decoratorRows.has(row) || (code && DECORATOR_RE.test(bare))) kind = 'decorator';
    else if (code && CLAUSE_RE.test(bare)) kind = 'clause';
    else if (isCloser(text)) kind = 'closer';
    else kind = 'code';

    if (kind === 'clause') {
      // pair with the opener of the block this line closes (`} else {`) or the previous header at the same indent
      let owner = closesRowOf[row]! >= 0 ? stmtStart[closesRowOf[row]!]! : -1;
      if (owner < 0) {
        const ind = indentWidth(text);
        for (let r = row - 1; r >= 0 && r >= row - 500; r--) {
          const l = String(lines[r] ?? '');
          if (l.trim() === '' || isComment[r]) continue;
          const w = indentWidth(l);
          if (w < ind) break;
          if (w === ind && CONTROL_RE.test(l.trim())) {
            owner = r;
            break;
          }
        }
      }
      if (owner >= 0 && owner !== row) {
        const root = ownerOf.get(owner) ?? owner;
        ownerOf.set(row, root);
      }
    }
    if (code && kind !== 'comment' && kind !== 'blank' && kind !== 'import') {
      const sc = definitionAt.get(row);
      if (sc?.name) defines.push(sc.name);
      const v = VAR_RE.exec(bare);
      if (v) defines.push(v[1]!);
      const noStrings = bare.length > 4000 ? '' : bare.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ');
      const seen = new Set(defines);
      for (const m of noStrings.matchAll(IDENT_RE)) {
        const w = m[0];
        if (!KEYWORDS.has(w) && !seen.has(w) && !/^\d/.test(w)) {
          seen.add(w);
          uses.push(w);
        }
      }
    }
    for (const d of defines) {
      const rows = definitions.get(d);
      if (rows) rows.push(row);
      else definitions.set(d, [row]);
    }
    out[row] = {
      kind,
      depth: enclosing[row]!.length,
      scopes: enclosing[row]!,
      defines,
      uses,
      stmtStart: stmtStart[row]!,
      stmtEnd: stmtEnd[row]!,
      closers: [...new Set(closers[row])].sort((a, b) => a - b),
      pairs: [],
    };
  }
  return { out, definitions, imports, ownerOf };
}

/** Clause groups (each clause line -> the first line of its group) become each line's pairs. */
function pairClauses(out: LineSyntax[], ownerOf: Map<number, number>): void {
  const pairs: number[][] = Array.from({ length: out.length }, () => []);
  const groups = new Map<number, number[]>();
  for (const [row, root] of ownerOf) {
    const g = groups.get(root) ?? [root];
    g.push(row);
    groups.set(root, g);
  }
  for (const g of groups.values()) pairGroup(g, (r, o) => pairs[r]!.push(o));
  for (let row = 0; row < out.length; row++) if (pairs[row]!.length) out[row]!.pairs = pairs[row]!.sort((a, b) => a - b);
}

/** Names an import-like line binds: `import a.b.C`, `import a.b.C as D`, `from x import a, b as c`, `import {a} from`. */
function importBindings(line: string): string[] {
  const t = line.replace(/;\s*$/, '').trim();
  let m = /^import\s+(?:static\s+)?([\w.]+)(?:\s+as\s+(\w+))?$/.exec(t);
  if (m) {
    if (m[2]) return [m[2]];
    const last = m[1]!.split('.').pop()!;
    return last && last !== '*' ? [last] : [];
  }
  m = /^from\s+\S+\s+import\s+\(?([^)]*)\)?$/.exec(t);
  if (m) {
    return m[1]!
      .split(',')
      .map((p) =>
        p
          .trim()
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      )
      .filter((x) => /^\w+$/.test(x));
  }
  m = /^import\s+(.*?)\s+from\s+['"]/.exec(t);
  if (m) {
    return m[1]!
      .replace(/[{}*]/g, ',')
      .split(',')
      .map((p) =>
        p
          .trim()
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      )
      .filter((x) => /^[\w$]+$/.test(x) && x !== 'type');
  }
  m = /^using\s+(?:static\s+)?(?:(\w+)\s*=\s*)?([\w.]+)$/.exec(t);
  if (m) return [m[1] ?? m[2]!.split('.').pop()!];
  return [];
}
