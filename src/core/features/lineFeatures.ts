/**
 * Per-line, query-conditioned feature vectors for the learned skimmer (design 2.3).
 * Everything is computed over one segment: lexical match (BM25 over the file's lines, idf-mass
 * coverage), the same for windows and enclosing scopes, the learned query->code bridge, verbatim
 * evidence typical of issue texts (identifiers, code lines, traceback frames), structure from the
 * SyntaxIndex, position and length. Values are squashed to roughly [0, 1] so one small MLP fits all.
 */
import type { LineKind, Scope, ScoreInput, SyntaxIndex } from '../types.js';
import { type BridgeTable, expandQuery } from './bridge.js';
import { rawTokens, terms, termsOfTokens } from './lexical.js';

const FUNC_KINDS = new Set(['function', 'method', 'constructor']);
const KINDS = ['blank', 'comment', 'docstring', 'import', 'decorator', 'header', 'clause', 'closer', 'code'] as const satisfies readonly LineKind[];

/**
 * The model's input columns, in order (a trained model stores this list and refuses another). The
 * feature code writes each column by name (`COL`); a test checks that every column of every row is
 * written exactly once.
 */
const NAMES = [
  // lexical, line level
  'bm25_norm',
  'bm25_log',
  'coverage',
  'matched_terms_log',
  'max_idf_matched',
  'bm25_rank_pct',
  'win2_norm',
  'win8_norm',
  'code_bm25_norm',
  'code_win8_norm',
  'code_scope_cov',
  // scopes
  'scope_inner_cov',
  'scope_outer_cov',
  'scope_max_cov',
  'in_best_scope',
  'scope_name_in_query',
  'any_scope_name_in_query',
  'traceback_func_scope',
  'func_density_norm',
  'func_rank_pct',
  'in_top3_func',
  // definition names against the query (name terms weighted by their rarity among the file's names)
  'func_name_cov',
  'class_name_cov',
  'name_cov_max',
  'name_cov_rank_pct',
  'name_bridge',
  // verbatim evidence
  'verbatim_id_frac',
  'verbatim_id_any',
  'defines_query_symbol',
  'line_in_query',
  // learned bridge
  'bridge_norm',
  'bridge_log',
  'bridge_win_norm',
  'bridge_scope_norm',
  'term_prior',
  // structure
  ...KINDS.map((k) => `kind_${k}` as const),
  'depth',
  'in_definition',
  'is_scope_header',
  'is_def_header',
  'defines_used_by_strong',
  'import_used_by_strong',
  'header_of_strong',
  'near_strong',
  'position',
  'length_log',
  'indent',
  'scope_size_log',
  'file_lines_log',
  'has_grammar',
  // query kind
  'query_len_log',
  'query_is_question',
  'query_has_traceback',
  'query_has_code',
  'path_in_query',
  'bias_one',
] as const;

export type FeatureName = (typeof NAMES)[number];
export const FEATURE_NAMES: string[] = [...NAMES];
export const NUM_FEATURES = FEATURE_NAMES.length;
/** Column of each feature in a row. */
export const COL: Readonly<Record<FeatureName, number>> = Object.freeze(Object.fromEntries(NAMES.map((name, i) => [name, i])) as Record<FeatureName, number>);

export interface FeatureContext {
  bridge: BridgeTable;
}

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

const log1p = Math.log1p;
const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
const maxOf = (a: Float64Array): number => {
  let m = 0;
  for (const v of a) if (v > m) m = v;
  return m;
};
const F = NUM_FEATURES;

/**
 * Features of every line of a segment: a row-major n x NUM_FEATURES matrix.
 * `qi` may be passed in when several segments share a query.
 */
export function lineFeatures(input: ScoreInput, ctx: FeatureContext, qi?: QueryInfo): Float64Array {
  const X = new Float64Array(input.lines.length * F);
  writeLineFeatures(X, input, ctx, qi);
  return X;
}

/**
 * Write the feature matrix of `lineFeatures` into `X` (n x NUM_FEATURES, row-major). Each feature
 * group is one function writing its own columns by name.
 */
export function writeLineFeatures(X: Float64Array, input: ScoreInput, ctx: FeatureContext, qi?: QueryInfo): void {
  const q = qi ?? analyzeQuery(input.query, ctx.bridge);
  const { lines, syntax: syn } = input;
  const n = lines.length;
  if (n === 0) return;
  const lt = lineTerms(lines);
  const qt = queryTerms(q, lt, n);
  const lm = matchLines(lt, qt, q, ctx.bridge, n);
  const ss = scopeStats(syn.scopes, lm, qt, q, n);
  const enc = enclosingScopes(syn, ss.defAt, n);
  writeLexical(X, lm, n);
  writeScopes(X, syn, ss, enc, n);
  writeNames(X, syn, nameStats(syn.scopes, q), ss.defAt, enc, n);
  writeVerbatim(X, lines, syn, lt.raw, q);
  writeBridge(X, lm, ss, enc, n);
  writeStructure(X, lines, syn, enc, strongLines(syn, lm.bm25, n));
  writeQueryKind(X, q, input.path, n);
}

// ---------------------------------------------------------------------------
// Statistics the feature groups share

/** Each line's raw tokens and its terms as integer ids, with document frequencies over lines. */
interface LineTerms {
  raw: string[][];
  ids: Int32Array[];
  /** term id -> term */
  term: string[];
  /** term -> id */
  id: Map<string, number>;
  /** term id -> number of lines containing it */
  df: number[];
  totalLen: number;
}

function lineTerms(lines: string[]): LineTerms {
  const n = lines.length;
  const lineRaw: string[][] = new Array(n);
  const lineIds: Int32Array[] = new Array(n);
  const termId = new Map<string, number>();
  const termStr: string[] = [];
  const dfArr: number[] = [];
  const lastSeen: number[] = [];
  // identifiers repeat a lot within a file: normalize each distinct token once
  const tokenIds = new Map<string, number[]>();
  let totalLen = 0;
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const raw = rawTokens(lines[i]);
    lineRaw[i] = raw;
    ids.length = 0;
    for (const tok of raw) {
      let tt = tokenIds.get(tok);
      if (!tt) {
        tt = [];
        for (const x of termsOfTokens([tok])) {
          let id = termId.get(x);
          if (id === undefined) {
            id = termStr.length;
            termId.set(x, id);
            termStr.push(x);
            dfArr.push(0);
            lastSeen.push(-1);
          }
          tt.push(id);
        }
        tokenIds.set(tok, tt);
      }
      for (const id of tt) {
        ids.push(id);
        if (lastSeen[id] !== i) {
          lastSeen[id] = i;
          dfArr[id]++;
        }
      }
    }
    const lineTerms = new Int32Array(ids.length); // a plain copy: Int32Array.from iterates slowly
    for (let k = 0; k < ids.length; k++) lineTerms[k] = ids[k];
    lineIds[i] = lineTerms;
    totalLen += ids.length;
  }
  return { raw: lineRaw, ids: lineIds, term: termStr, id: termId, df: dfArr, totalLen };
}

/** The query terms present in the file, indexed 0.., with their idf-weighted query weight. */
interface QueryTerms {
  index: Map<string, number>;
  idfW: number[];
  /** total idf-weighted mass of the query terms in the file */
  mass: number;
  maxIdf: number;
  /** 1 for a term from a code-like part of the query */
  isCode: Uint8Array;
  codeMass: number;
}

function queryTerms(q: QueryInfo, lt: LineTerms, n: number): QueryTerms {
  const idf = (t: string): number => {
    const id = lt.id.get(t);
    const d = (id === undefined ? undefined : lt.df[id]) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  const index = new Map<string, number>();
  const idfW: number[] = [];
  let mass = 0;
  let maxIdf = 1e-9;
  for (const [t, w] of q.weight) {
    if (!lt.id.has(t)) continue;
    index.set(t, idfW.length);
    const v = idf(t) * w;
    idfW.push(v);
    mass += v;
    if (v > maxIdf) maxIdf = v;
  }
  mass = Math.max(mass, 1e-9);
  const isCode = new Uint8Array(idfW.length);
  let codeMass = 0;
  for (const [t, k] of index) {
    if (!q.codeTerms.has(t)) continue;
    isCode[k] = 1;
    codeMass += idfW[k];
  }
  return { index, idfW, mass, maxIdf, isCode, codeMass };
}

/** Per line: BM25 against the query (all terms, code terms), coverage, bridge mass, term prior. */
interface LineMatch {
  bm25: Float64Array;
  codeBm: Float64Array;
  cov: Float64Array;
  nMatch: Float64Array;
  maxIdf: Float64Array;
  bridge: Float64Array;
  prior: Float64Array;
  /** indexes (QueryTerms) of the query terms on each line */
  matched: number[][];
}

function matchLines(lt: LineTerms, qt: QueryTerms, q: QueryInfo, table: BridgeTable, n: number): LineMatch {
  const { idfW: qIdfW, isCode: qIsCode } = qt;
  const bm25 = new Float64Array(n);
  const codeBm = new Float64Array(n);
  const cov = new Float64Array(n);
  const nMatch = new Float64Array(n);
  const maxIdf = new Float64Array(n);
  const bridge = new Float64Array(n);
  const prior = new Float64Array(n);
  const matched: number[][] = new Array(n);
  const k1 = 1.2;
  const b = 0.75;
  const avgLen = Math.max(1, lt.totalLen / n);
  // per term id: query index, bridge expansion, prior
  const V = lt.term.length;
  const qOf = new Int32Array(V).fill(-1);
  const expOf = new Float64Array(V);
  const priOf = new Float64Array(V).fill(-Infinity);
  for (let id = 0; id < V; id++) {
    const x = lt.term[id];
    const k = qt.index.get(x);
    if (k !== undefined) qOf[id] = k;
    const e = q.expansion.get(x);
    if (e !== undefined) expOf[id] = e;
    const p = table.prior.get(x);
    if (p !== undefined) priOf[id] = p;
  }
  const cnt = new Float64Array(qIdfW.length);
  const seenStamp = new Int32Array(qIdfW.length).fill(-1);
  for (let i = 0; i < n; i++) {
    const t = lt.ids[i];
    const m: number[] = [];
    let br = 0;
    let pr = -Infinity;
    for (let k = 0; k < t.length; k++) {
      const id = t[k];
      const qk = qOf[id];
      if (qk >= 0) {
        if (seenStamp[qk] !== i) {
          seenStamp[qk] = i;
          cnt[qk] = 0;
          m.push(qk);
          br += expOf[id]; // count each term's bridge mass once per line
        }
        cnt[qk]++;
      } else br += expOf[id]; // bridge-only term (per occurrence)
      if (priOf[id] > pr) pr = priOf[id];
    }
    let s = 0;
    let c = 0;
    let mi = 0;
    let cs = 0;
    const norm = k1 * (1 - b + (b * t.length) / avgLen);
    for (const k of m) {
      const w = qIdfW[k];
      const f = cnt[k];
      const v = (w * f * (k1 + 1)) / (f + norm);
      s += v;
      if (qIsCode[k]) cs += v;
      c += w;
      if (w > mi) mi = w;
    }
    matched[i] = m;
    bm25[i] = s;
    codeBm[i] = cs;
    cov[i] = c / qt.mass;
    nMatch[i] = m.length;
    maxIdf[i] = mi / qt.maxIdf;
    bridge[i] = br;
    prior[i] = pr === -Infinity ? 0 : 1 / (1 + Math.exp(-pr));
  }
  return { bm25, codeBm, cov, nMatch, maxIdf, bridge, prior, matched };
}

/** Sums over a window of `w` lines either side, via prefix sums. */
function windowed(a: Float64Array, w: number): Float64Array {
  const n = a.length;
  const pre = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) pre[i + 1] = pre[i] + a[i];
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = pre[Math.min(n, i + w + 1)] - pre[Math.max(0, i - w)];
  return out;
}

/** Per scope: idf-mass coverage of the union of matched query terms, bridge mass, function ranks. */
interface ScopeStats {
  cov: Float64Array;
  codeCov: Float64Array;
  bridge: Float64Array;
  maxBridge: number;
  /** the definition covering the most query mass, or -1 */
  best: number;
  /** functions: length-normalized BM25 mass */
  density: Float64Array;
  maxDensity: number;
  funcRank: Float64Array;
  top3: Set<number>;
  /** per line: the definition whose first line it is, or -1 */
  defAt: Int32Array;
  /** the scope's name occurs verbatim in the query */
  nameHit: Uint8Array;
  /** the scope's name is a function of a traceback frame in the query */
  traceback: Uint8Array;
}

function scopeStats(scopes: Scope[], lm: LineMatch, qt: QueryTerms, q: QueryInfo, n: number): ScopeStats {
  const { idfW: qIdfW, isCode: qIsCode } = qt;
  const S = scopes.length;
  const scopeCov = new Float64Array(S);
  const scopeCodeCov = new Float64Array(S);
  const scopeBridge = new Float64Array(S);
  const stamp = new Int32Array(qIdfW.length).fill(-1);
  for (let s = 0; s < S; s++) {
    const sc = scopes[s];
    let c = 0;
    let cc = 0;
    let br = 0;
    const lo = Math.max(0, sc.start);
    const hi = Math.min(n - 1, sc.end);
    for (let i = lo; i <= hi; i++) {
      for (const k of lm.matched[i]) {
        if (stamp[k] === s) continue;
        stamp[k] = s;
        c += qIdfW[k];
        if (qIsCode[k]) cc += qIdfW[k];
      }
      br += lm.bridge[i];
    }
    scopeCov[s] = c / qt.mass;
    scopeCodeCov[s] = qt.codeMass > 0 ? cc / qt.codeMass : 0;
    scopeBridge[s] = br / Math.sqrt(hi - lo + 1);
  }
  let bestScope = -1;
  let maxScopeBr = 0;
  for (let s = 0; s < S; s++) {
    if (scopes[s].isDefinition && (bestScope < 0 || scopeCov[s] > scopeCov[bestScope])) bestScope = s;
    if (scopeBridge[s] > maxScopeBr) maxScopeBr = scopeBridge[s];
  }
  // function-level scopes ranked by coverage plus length-normalized density of matches
  const funcScore = new Float64Array(S).fill(-1);
  const density = new Float64Array(S);
  let maxDensity = 0;
  const bmPre = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) bmPre[i + 1] = bmPre[i] + lm.bm25[i];
  for (let s = 0; s < S; s++) {
    if (!FUNC_KINDS.has(scopes[s].kind)) continue;
    const lo = Math.max(0, scopes[s].start);
    const hi = Math.min(n - 1, scopes[s].end);
    if (hi < lo) continue;
    density[s] = (bmPre[hi + 1] - bmPre[lo]) / Math.sqrt(hi - lo + 1);
    if (density[s] > maxDensity) maxDensity = density[s];
  }
  const funcIds: number[] = [];
  for (let s = 0; s < S; s++) {
    if (!FUNC_KINDS.has(scopes[s].kind)) continue;
    funcScore[s] = scopeCov[s] + (maxDensity > 0 ? (0.5 * density[s]) / maxDensity : 0);
    funcIds.push(s);
  }
  funcIds.sort((a, c) => funcScore[c] - funcScore[a] || a - c);
  const funcRank = new Float64Array(S);
  funcIds.forEach((s, r) => {
    funcRank[s] = funcScore[s] > 0 ? 1 - r / funcIds.length : 0;
  });
  const top3 = new Set(funcIds.slice(0, 3).filter((s) => funcScore[s] > 0));
  const defAt = new Int32Array(n).fill(-1);
  for (let s = 0; s < S; s++) {
    const st = scopes[s].start;
    if (scopes[s].isDefinition && st >= 0 && st < n && defAt[st] < 0) defAt[st] = s;
  }
  const nameHit = new Uint8Array(S);
  const traceback = new Uint8Array(S);
  for (let s = 0; s < S; s++) {
    const nm = scopes[s].name;
    if (!nm) continue;
    if (nm.length >= 3 && q.raw.has(nm)) nameHit[s] = 1;
    if (q.tbFuncs.has(nm)) traceback[s] = 1;
  }
  return {
    cov: scopeCov,
    codeCov: scopeCodeCov,
    bridge: scopeBridge,
    maxBridge: maxScopeBr,
    best: bestScope,
    density,
    maxDensity,
    funcRank,
    top3,
    defAt,
    nameHit,
    traceback,
  };
}

/** Per line, scopes it belongs to (a definition's header line belongs to the definition), or -1. */
interface Enclosing {
  /** innermost definition */
  inner: Int32Array;
  /** outermost definition */
  outer: Int32Array;
  /** innermost function, method or constructor */
  fn: Int32Array;
  /** innermost other definition (class, struct, impl, ...) */
  cls: Int32Array;
}

function enclosingScopes(syn: SyntaxIndex, defAt: Int32Array, n: number): Enclosing {
  const scopes = syn.scopes;
  const inner = new Int32Array(n);
  const outer = new Int32Array(n);
  const fnOf = new Int32Array(n);
  const clsOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let inn = -1;
    let out = -1;
    let cls = -1;
    let fn = -1;
    const ls = syn.lines[i];
    const scs = ls ? ls.scopes : [];
    for (const s of scs) {
      const sc = scopes[s];
      if (!sc) continue;
      if (sc.isDefinition) {
        if (out < 0) out = s;
        inn = s;
        if (!FUNC_KINDS.has(sc.kind)) cls = s;
      }
      if (FUNC_KINDS.has(sc.kind)) fn = s;
    }
    // a header line belongs to the scope it opens
    const s = defAt[i];
    if (s >= 0) {
      inn = s;
      if (out < 0) out = s;
      if (FUNC_KINDS.has(scopes[s].kind)) fn = s;
      else cls = s;
    }
    inner[i] = inn;
    outer[i] = out;
    fnOf[i] = fn;
    clsOf[i] = cls;
  }
  return { inner, outer, fn: fnOf, cls: clsOf };
}

/**
 * Definition names against the query: "_print_Symbol" covers "symbol" from the query; "print",
 * in every name of the file, weighs little (name terms weighted by their rarity among the file's names).
 */
interface NameStats {
  cov: Float64Array;
  bridge: Float64Array;
  rank: Float64Array;
}

function nameStats(scopes: Scope[], q: QueryInfo): NameStats {
  const S = scopes.length;
  const nameCov = new Float64Array(S);
  const nameBridge = new Float64Array(S);
  const nameRank = new Float64Array(S);
  const nameTerms: string[][] = new Array(S);
  const dfName = new Map<string, number>();
  let named = 0;
  for (let s = 0; s < S; s++) {
    const nm = scopes[s].isDefinition ? scopes[s].name : undefined;
    nameTerms[s] = nm ? [...new Set(terms(nm, { keepCompound: false }))] : [];
    if (!nameTerms[s].length) continue;
    named++;
    for (const t of nameTerms[s]) dfName.set(t, (dfName.get(t) ?? 0) + 1);
  }
  const idfName = (t: string): number => {
    const d = dfName.get(t) ?? 0;
    return Math.log(1 + (named - d + 0.5) / (d + 0.5));
  };
  const ranked: number[] = [];
  for (let s = 0; s < S; s++) {
    const nt = nameTerms[s];
    if (!nt.length) continue;
    let hit = 0;
    let all = 0;
    let br = 0;
    for (const t of nt) {
      const w = idfName(t);
      all += w;
      if (q.weight.has(t)) hit += w;
      br = Math.max(br, q.expansion.get(t) ?? 0);
    }
    nameCov[s] = all > 0 ? hit / all : 0;
    nameBridge[s] = Math.min(1, br / 3);
    if (nameCov[s] > 0) ranked.push(s);
  }
  ranked.sort((a, c) => nameCov[c] - nameCov[a] || a - c);
  ranked.forEach((s, r) => {
    nameRank[s] = 1 - r / Math.max(1, named);
  });
  return { cov: nameCov, bridge: nameBridge, rank: nameRank };
}

/** Strong lines (BM25 at least half the best) and the lines they depend on. */
interface StrongLines {
  /** defines a name a strong line uses */
  dependency: Uint8Array;
  /** imports a name a strong line uses */
  importOf: Uint8Array;
  /** header or decorator of a scope enclosing a strong line */
  headerOf: Uint8Array;
  /** exp(-distance to the nearest strong line / 4) */
  near: Float64Array;
}

function strongLines(syn: SyntaxIndex, bm25: Float64Array, n: number): StrongLines {
  const scopes = syn.scopes;
  const strong = new Uint8Array(n);
  const strongCut = Math.max(0.5 * maxOf(bm25), 1e-9);
  for (let i = 0; i < n; i++) if (bm25[i] >= strongCut && bm25[i] > 0) strong[i] = 1;
  const depOfStrong = new Uint8Array(n);
  const headerOfStrong = new Uint8Array(n);
  const importOfStrong = new Uint8Array(n);
  const near = new Float64Array(n);
  let last = -1e9;
  for (let i = 0; i < n; i++) {
    if (strong[i]) last = i;
    near[i] = i - last;
  }
  last = 1e9;
  for (let i = n - 1; i >= 0; i--) {
    if (strong[i]) last = i;
    near[i] = Math.exp(-Math.min(near[i], last - i) / 4);
  }
  // Each name's definitions and each scope's header are marked once (strong lines share them:
  // marking per strong line would cost strong lines x definitions). A definition line is not
  // marked for its own use of the name: per name, the one strong line using it, or -2 for several.
  const strongUser = new Map<string, number>();
  const scopeDone = new Uint8Array(scopes.length);
  for (let i = 0; i < n; i++) {
    if (!strong[i]) continue;
    const ls = syn.lines[i];
    if (!ls) continue;
    for (const u of ls.uses) {
      if (syn.definitions.has(u)) {
        const prev = strongUser.get(u);
        strongUser.set(u, prev === undefined || prev === i ? i : -2);
      }
      const im = syn.imports.get(u);
      if (im !== undefined && im >= 0 && im < n) importOfStrong[im] = 1;
    }
    for (const s of ls.scopes) {
      const sc = scopes[s];
      if (!sc || scopeDone[s]) continue;
      scopeDone[s] = 1;
      for (let j = sc.start; j <= sc.headerEnd && j < n; j++) headerOfStrong[j] = 1;
      for (const d of sc.decorators) if (d >= 0 && d < n) headerOfStrong[d] = 1;
    }
  }
  for (const [u, user] of strongUser) {
    for (const j of syn.definitions.get(u) ?? []) if (j >= 0 && j < n && j !== user) depOfStrong[j] = 1;
  }
  return { dependency: depOfStrong, importOf: importOfStrong, headerOf: headerOfStrong, near };
}

// ---------------------------------------------------------------------------
// Feature groups: each writes its columns of every row

/** Lexical match of the line and its windows: BM25, coverage, rank, code-term BM25. */
function writeLexical(X: Float64Array, lm: LineMatch, n: number): void {
  const { bm25_norm, bm25_log, coverage, matched_terms_log, max_idf_matched, bm25_rank_pct, win2_norm, win8_norm, code_bm25_norm, code_win8_norm } = COL;
  const { bm25, codeBm } = lm;
  const win2 = windowed(bm25, 2);
  const win8 = windowed(bm25, 8);
  const cwin8 = windowed(codeBm, 8);
  const maxBm = maxOf(bm25);
  const maxW2 = maxOf(win2);
  const maxW8 = maxOf(win8);
  const maxCode = maxOf(codeBm);
  const maxCw8 = maxOf(cwin8);
  const rankPct = rankPercentile(bm25);
  for (let i = 0; i < n; i++) {
    const o = i * F;
    X[o + bm25_norm] = maxBm > 0 ? bm25[i] / maxBm : 0;
    X[o + bm25_log] = Math.min(1, log1p(bm25[i]) / 3);
    X[o + coverage] = clamp01(lm.cov[i]);
    X[o + matched_terms_log] = Math.min(1, log1p(lm.nMatch[i]) / 2.5);
    X[o + max_idf_matched] = lm.maxIdf[i];
    X[o + bm25_rank_pct] = rankPct[i];
    X[o + win2_norm] = maxW2 > 0 ? win2[i] / maxW2 : 0;
    X[o + win8_norm] = maxW8 > 0 ? win8[i] / maxW8 : 0;
    X[o + code_bm25_norm] = maxCode > 0 ? codeBm[i] / maxCode : 0;
    X[o + code_win8_norm] = maxCw8 > 0 ? cwin8[i] / maxCw8 : 0;
  }
}

/**
 * Rank percentile of each value: 1 - (values strictly higher) / n, so ties share a rank; 0 for
 * values <= 0 (most lines do not match, hence a numeric sort and a search instead of an index sort).
 */
function rankPercentile(a: Float64Array): Float64Array {
  const n = a.length;
  const rankPct = new Float64Array(n);
  const sorted = Float64Array.from(a).sort();
  for (let i = 0; i < n; i++) {
    const v = a[i];
    if (!(v > 0)) continue;
    let lo = 0;
    let hi = n; // first index with a value > v
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] > v) hi = mid;
      else lo = mid + 1;
    }
    rankPct[i] = 1 - (n - lo) / n;
  }
  return rankPct;
}

/** Enclosing scopes: their coverage of the query, names, traceback frames, function rank. */
function writeScopes(X: Float64Array, syn: SyntaxIndex, ss: ScopeStats, enc: Enclosing, n: number): void {
  const {
    code_scope_cov,
    scope_inner_cov,
    scope_outer_cov,
    scope_max_cov,
    in_best_scope,
    scope_name_in_query,
    any_scope_name_in_query,
    traceback_func_scope,
    func_density_norm,
    func_rank_pct,
    in_top3_func,
  } = COL;
  const scopes = syn.scopes;
  for (let i = 0; i < n; i++) {
    const o = i * F;
    const ls = syn.lines[i];
    let maxCov = 0;
    let anyName = 0;
    let tb = 0;
    let inBest = 0;
    for (const s of ls ? ls.scopes : []) {
      if (!scopes[s]) continue;
      if (ss.cov[s] > maxCov) maxCov = ss.cov[s];
      if (ss.nameHit[s]) anyName = 1;
      if (ss.traceback[s]) tb = 1;
      if (s === ss.best) inBest = 1;
    }
    // a header line belongs to the scope it opens
    const s = ss.defAt[i];
    if (s >= 0) {
      if (s === ss.best) inBest = 1;
      if (ss.nameHit[s]) anyName = 1;
      if (ss.traceback[s]) tb = 1;
      maxCov = Math.max(maxCov, ss.cov[s]);
    }
    const inner = enc.inner[i];
    const outer = enc.outer[i];
    const fn = enc.fn[i];
    X[o + code_scope_cov] = inner >= 0 ? clamp01(ss.codeCov[inner]) : 0;
    X[o + scope_inner_cov] = inner >= 0 ? clamp01(ss.cov[inner]) : 0;
    X[o + scope_outer_cov] = outer >= 0 ? clamp01(ss.cov[outer]) : 0;
    X[o + scope_max_cov] = clamp01(maxCov);
    X[o + in_best_scope] = inBest;
    X[o + scope_name_in_query] = inner >= 0 && ss.nameHit[inner] ? 1 : 0;
    X[o + any_scope_name_in_query] = anyName;
    X[o + traceback_func_scope] = tb;
    X[o + func_density_norm] = fn >= 0 && ss.maxDensity > 0 ? ss.density[fn] / ss.maxDensity : 0;
    X[o + func_rank_pct] = fn >= 0 ? ss.funcRank[fn] : 0;
    X[o + in_top3_func] = fn >= 0 && ss.top3.has(fn) ? 1 : 0;
  }
}

/** Definition names: innermost function, innermost other definition, best enclosing one. */
function writeNames(X: Float64Array, syn: SyntaxIndex, ns: NameStats, defAt: Int32Array, enc: Enclosing, n: number): void {
  const { func_name_cov, class_name_cov, name_cov_max, name_cov_rank_pct, name_bridge } = COL;
  const scopes = syn.scopes;
  for (let i = 0; i < n; i++) {
    const o = i * F;
    const ls = syn.lines[i];
    let nameMax = 0;
    for (const s of ls ? ls.scopes : []) {
      const sc = scopes[s];
      if (sc?.isDefinition && ns.cov[s] > nameMax) nameMax = ns.cov[s];
    }
    if (defAt[i] >= 0) nameMax = Math.max(nameMax, ns.cov[defAt[i]]);
    const inner = enc.inner[i];
    const fn = enc.fn[i];
    const cls = enc.cls[i];
    X[o + func_name_cov] = fn >= 0 ? ns.cov[fn] : 0;
    X[o + class_name_cov] = cls >= 0 ? ns.cov[cls] : 0;
    X[o + name_cov_max] = nameMax;
    X[o + name_cov_rank_pct] = inner >= 0 ? ns.rank[inner] : 0;
    X[o + name_bridge] = inner >= 0 ? ns.bridge[inner] : 0;
  }
}

/** Verbatim evidence: the line's identifiers, definitions or whole text occur in the query. */
function writeVerbatim(X: Float64Array, lines: string[], syn: SyntaxIndex, lineRaw: string[][], q: QueryInfo): void {
  const { verbatim_id_frac, verbatim_id_any, defines_query_symbol, line_in_query } = COL;
  for (let i = 0; i < lines.length; i++) {
    const o = i * F;
    let ids = 0;
    let idHits = 0;
    for (const r of lineRaw[i]) {
      if (r.length < 4) continue;
      ids++;
      if (q.raw.has(r)) idHits++;
    }
    X[o + verbatim_id_frac] = ids ? idHits / ids : 0;
    X[o + verbatim_id_any] = idHits > 0 ? 1 : 0;
    let defQ = 0;
    const ls = syn.lines[i];
    if (ls) for (const d of ls.defines) if (d.length >= 3 && q.raw.has(d)) defQ = 1;
    X[o + defines_query_symbol] = defQ;
    // only lines whose identifiers all occur in the query can occur in it verbatim
    let inQuery = 0;
    if (ids > 0 && idHits === ids) {
      const trimmed = lines[i].trim();
      if (trimmed.length >= 12 && q.text.includes(trimmed)) inQuery = 1;
    }
    X[o + line_in_query] = inQuery;
  }
}

/** The learned query->code bridge: the line, its window, its innermost definition; term prior. */
function writeBridge(X: Float64Array, lm: LineMatch, ss: ScopeStats, enc: Enclosing, n: number): void {
  const { bridge_norm, bridge_log, bridge_win_norm, bridge_scope_norm, term_prior } = COL;
  const bridge = lm.bridge;
  const bwin = windowed(bridge, 3);
  const maxBr = maxOf(bridge);
  const maxBw = maxOf(bwin);
  for (let i = 0; i < n; i++) {
    const o = i * F;
    const inner = enc.inner[i];
    X[o + bridge_norm] = maxBr > 0 ? bridge[i] / maxBr : 0;
    X[o + bridge_log] = Math.min(1, log1p(bridge[i]) / 3);
    X[o + bridge_win_norm] = maxBw > 0 ? bwin[i] / maxBw : 0;
    X[o + bridge_scope_norm] = inner >= 0 && ss.maxBridge > 0 ? ss.bridge[inner] / ss.maxBridge : 0;
    X[o + term_prior] = lm.prior[i];
  }
}

/** Structure: line kind, depth, headers, what strong lines depend on, position, size. */
function writeStructure(X: Float64Array, lines: string[], syn: SyntaxIndex, enc: Enclosing, st: StrongLines): void {
  const {
    depth,
    in_definition,
    is_scope_header,
    is_def_header,
    defines_used_by_strong,
    import_used_by_strong,
    header_of_strong,
    near_strong,
    position,
    length_log,
    indent,
    scope_size_log,
    file_lines_log,
    has_grammar,
  } = COL;
  const kindCols = KINDS.map((k) => COL[`kind_${k}`]);
  const scopes = syn.scopes;
  const n = lines.length;
  const fileLog = Math.min(1, log1p(n) / 8);
  for (let i = 0; i < n; i++) {
    const o = i * F;
    const text = lines[i];
    const ls = syn.lines[i];
    const inner = enc.inner[i];
    const kind = ls ? ls.kind : text.trim() ? 'code' : 'blank';
    for (let k = 0; k < KINDS.length; k++) X[o + kindCols[k]] = kind === KINDS[k] ? 1 : 0;
    X[o + depth] = Math.min(1, (ls ? ls.depth : 0) / 6);
    X[o + in_definition] = inner >= 0 ? 1 : 0;
    let isHeader = 0;
    let isDefHeader = 0;
    const scs = ls ? ls.scopes : [];
    if (scs.length) {
      const sc = scopes[scs[scs.length - 1]];
      if (sc && i >= sc.start && i <= sc.headerEnd) {
        isHeader = 1;
        if (sc.isDefinition) isDefHeader = 1;
      }
    }
    if (kind === 'header') {
      isHeader = 1;
      isDefHeader = isDefHeader || inner >= 0 ? 1 : 0;
    }
    X[o + is_scope_header] = isHeader;
    X[o + is_def_header] = isDefHeader;
    X[o + defines_used_by_strong] = st.dependency[i];
    X[o + import_used_by_strong] = st.importOf[i];
    X[o + header_of_strong] = st.headerOf[i];
    X[o + near_strong] = st.near[i];
    X[o + position] = n > 1 ? i / (n - 1) : 0;
    X[o + length_log] = Math.min(1, log1p(text.length) / 5);
    X[o + indent] = Math.min(1, (text.length - text.trimStart().length) / 16);
    X[o + scope_size_log] = inner >= 0 ? Math.min(1, log1p(scopes[inner].end - scopes[inner].start + 1) / 7) : fileLog;
    X[o + file_lines_log] = fileLog;
    X[o + has_grammar] = syn.hasGrammar ? 1 : 0;
  }
}

/** The query's kind and whether it names the file: the same for every line. */
function writeQueryKind(X: Float64Array, q: QueryInfo, path: string | undefined, n: number): void {
  const { query_len_log, query_is_question, query_has_traceback, query_has_code, path_in_query, bias_one } = COL;
  const qLen = Math.min(1, log1p(q.terms.length) / 6);
  let pathHit = 0;
  if (path) {
    const base = path.split(/[\\/]/).pop() ?? '';
    const stemName = base.replace(/\.[^.]+$/, '');
    const pt = terms(stemName);
    if (pt.length) pathHit = pt.filter((x) => q.weight.has(x)).length / pt.length;
    if (q.text.includes(base)) pathHit = 1;
  }
  for (let i = 0; i < n; i++) {
    const o = i * F;
    X[o + query_len_log] = qLen;
    X[o + query_is_question] = q.isQuestion;
    X[o + query_has_traceback] = q.hasTraceback;
    X[o + query_has_code] = q.hasCode;
    X[o + path_in_query] = pathHit;
    X[o + bias_one] = 1;
  }
}
