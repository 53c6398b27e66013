/**
 * Query analysis for the line features: the query's terms and their weights, its identifiers,
 * traceback frames, bridge expansion and kind (question, traceback, code). Done once per query and
 * shared by every segment scored for it.
 */
import { type BridgeTable, expandQuery } from './bridge.js';
import { rawTokens, terms } from './lexical.js';

/** Query-side analysis, shared by all segments scored for the same query. */
export interface QueryInfo {
  text: string;
  terms: string[];
  /** unique term -> query-side weight (1 + log tf). */
  weight: Map<string, number>;
  /** Raw identifier tokens of the query (case kept), for verbatim matches. */
  raw: Set<string>;
  /** Function names of traceback frames ("in foo", "path.py:12: in foo"). */
  tbFuncs: Set<string>;
  expansion: Map<string, number>;
  /** Terms that come from code-like tokens of the query (identifiers, calls, attribute access, code blocks). */
  codeTerms: Set<string>;
  isQuestion: number;
  hasTraceback: number;
  hasCode: number;
}

const TB_RE = /(?:File "[^"]+", line \d+, in ([A-Za-z_][A-Za-z0-9_]*))|(?:\.\w+:\d+: in ([A-Za-z_][A-Za-z0-9_]*))/g;

export function analyzeQuery(query: string, bridge: BridgeTable): QueryInfo {
  const t = terms(query);
  const weight = new Map<string, number>();
  for (const x of t) weight.set(x, (weight.get(x) ?? 0) + 1);
  for (const [k, v] of weight) weight.set(k, 1 + Math.log(v));
  const raw = new Set<string>();
  for (const r of rawTokens(query)) if (r.length >= 3) raw.add(r);
  const tbFuncs = new Set<string>();
  for (const m of query.matchAll(TB_RE)) tbFuncs.add(m[1] ?? m[2]);
  const trimmed = query.trim();
  return {
    codeTerms: codeTermsOf(query),
    text: query,
    terms: t,
    weight,
    raw,
    tbFuncs,
    expansion: expandQuery(bridge, weight.keys()),
    isQuestion: /\?\s*$/.test(trimmed) || /^(how|where|what|why|which|when|does|is|can)\b/i.test(trimmed) ? 1 : 0,
    // (`\w+` starts only where a word starts: from inside one it would rescan it, quadratic on a long query)
    hasTraceback: /Traceback \(most recent call last\)|File "[^"]+", line \d+|(?<!\w)\w+Error:|panicked at|at \S+:\d+:\d+/.test(query) ? 1 : 0,
    hasCode: /```|^>>> /m.test(query) || indentedLine(query) || callEndsLine(query) ? 1 : 0,
  };
}

const isSpace = (c: number) =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0xfeff ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x3000 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x1680 ||
  c === 0x202f ||
  c === 0x205f;

/**
 * `/^\s{4,}\S/m` in linear time (the regex retries every line start of a long run of blank lines):
 * some line starts with at least 4 whitespace characters (which may span lines) before a non-space.
 */
export function indentedLine(q: string): boolean {
  for (let i = 0; i < q.length; ) {
    if (!isSpace(q.charCodeAt(i))) {
      i++;
      continue;
    }
    // a maximal whitespace run [a, b) followed by a non-space at b: a line start p in it with b - p >= 4
    // (the input's start, or just after a line terminator inside the run)
    const a = i;
    while (i < q.length && isSpace(q.charCodeAt(i))) i++;
    const b = i;
    if (b >= q.length) break;
    if (a === 0 && b >= 4) return true;
    for (let t = a; t <= b - 5; t++) if (isLineEnd(q.charCodeAt(t))) return true;
  }
  return false;
}

/** The line terminators of a multiline regular expression's `^` and `$`. */
const isLineEnd = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/**
 * `/\w+\([^)]*\)\s*$/m` in linear time (the regex rescans to the next `)` from every `word(`): a call
 * whose first `)` after an opening `word(` is followed by nothing but whitespace up to its line end.
 */
export function callEndsLine(q: string): boolean {
  let open = false;
  for (let i = 0; i < q.length; i++) {
    const c = q.charCodeAt(i);
    if (c === 40 && i > 0 && isWordChar(q.charCodeAt(i - 1))) open = true;
    else if (c === 41) {
      if (open) {
        let j = i + 1;
        while (j < q.length && !isLineEnd(q.charCodeAt(j)) && isSpace(q.charCodeAt(j))) j++;
        if (j >= q.length || isLineEnd(q.charCodeAt(j))) return true;
      }
      open = false;
    }
  }
  return false;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * Terms of the code-like parts of a query: snake_case / camelCase / dotted identifiers, calls,
 * backticked spans and code lines (fenced blocks, ">>> " prompts, indented lines). Issue texts mix
 * prose and code; the code part names what the fix touches far more precisely.
 */
export function codeTermsOf(query: string): Set<string> {
  const out = new Set<string>();
  const add = (text: string) => {
    for (const t of terms(text)) out.add(t);
  };
  let inFence = false;
  for (const line of query.split('\n')) {
    if (/^\s*```/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence || /^\s*>>> |^ {4,}\S|^\t\S/.test(line)) {
      add(line);
      continue;
    }
    for (const m of line.matchAll(/`([^`]+)`/g)) add(m[1]);
    // (the first two start only where an identifier starts: from inside one they rescan it, quadratic)
    for (const m of line.matchAll(
      /(?<![\w$])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?=\s*\()|(?<![\w$])[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$.]*|\b_*[a-z]+_[\w]+|\b_+[a-z]\w*|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*/g,
    ))
      add(m[0]);
  }
  return out;
}
