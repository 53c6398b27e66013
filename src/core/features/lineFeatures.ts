/**
 * Per-line, query-conditioned feature vectors for the learned skimmer (design 2.3).
 * Everything is computed over one segment: lexical match (BM25 over the file's lines, idf-mass
 * coverage), the same for windows and enclosing scopes, the learned query->code bridge, verbatim
 * evidence typical of issue texts (identifiers, code lines, traceback frames), structure from the
 * SyntaxIndex, position and length. Values are squashed to roughly [0, 1] so one small MLP fits all.
 */
import type { LineKind, ScoreInput, SyntaxIndex } from '../types.js';
import { type BridgeTable, expandQuery } from './bridge.js';
import { rawTokens, terms, termsOfTokens } from './lexical.js';

const FUNC_KINDS = new Set(['function', 'method', 'constructor']);
const KINDS: LineKind[] = ['blank', 'comment', 'docstring', 'import', 'decorator', 'header', 'clause', 'closer', 'code'];

export const FEATURE_NAMES: string[] = [
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
  ...KINDS.map((k) => `kind_${k}`),
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
];

export const NUM_FEATURES = FEATURE_NAMES.length;

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

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x1680 || c === 0x202f || c === 0x205f;

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
    for (const m of line.matchAll(/(?<![\w$])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?=\s*\()|(?<![\w$])[A-Za-z_$][\w$]*\.[A-Za-z_$][\w$.]*|\b_*[a-z]+_[\w]+|\b_+[a-z]\w*|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*/g)) add(m[0]);
  }
  return out;
}

const log1p = Math.log1p;
const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);

/**
 * Features of every line of a segment: a row-major n x NUM_FEATURES matrix.
 * `qi` may be passed in when several segments share a query.
 */
export function lineFeatures(input: ScoreInput, ctx: FeatureContext, qi?: QueryInfo): Float64Array {
  const q = qi ?? analyzeQuery(input.query, ctx.bridge);
  const lines = input.lines;
  const syn = input.syntax;
  const n = lines.length;
  const F = NUM_FEATURES;
  const X = new Float64Array(n * F);
  if (n === 0) return X;

  // --- terms per line as integer ids, document frequencies over lines
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
  const df = {
    get: (t: string): number | undefined => {
      const id = termId.get(t);
      return id === undefined ? undefined : dfArr[id];
    },
    has: (t: string): boolean => termId.has(t),
  };
  const avgLen = Math.max(1, totalLen / n);
  const idf = (t: string): number => {
    const d = df.get(t) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  // query terms present in the file, indexed
  const qIndex = new Map<string, number>();
  const qIdfW: number[] = [];
  let qMass = 0;
  let maxQIdf = 1e-9;
  for (const [t, w] of q.weight) {
    if (!df.has(t)) continue;
    qIndex.set(t, qIdfW.length);
    const v = idf(t) * w;
    qIdfW.push(v);
    qMass += v;
    if (v > maxQIdf) maxQIdf = v;
  }
  qMass = Math.max(qMass, 1e-9);
  const qIsCode = new Uint8Array(qIdfW.length);
  let codeMass = 0;
  for (const [t, k] of qIndex) {
    if (!q.codeTerms.has(t)) continue;
    qIsCode[k] = 1;
    codeMass += qIdfW[k];
  }

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
  // per term id: query index, bridge expansion, prior
  const V = termStr.length;
  const qOf = new Int32Array(V).fill(-1);
  const expOf = new Float64Array(V);
  const priOf = new Float64Array(V).fill(-Infinity);
  for (let id = 0; id < V; id++) {
    const x = termStr[id];
    const qi2 = qIndex.get(x);
    if (qi2 !== undefined) qOf[id] = qi2;
    const e = q.expansion.get(x);
    if (e !== undefined) expOf[id] = e;
    const p = ctx.bridge.prior.get(x);
    if (p !== undefined) priOf[id] = p;
  }
  const cnt = new Float64Array(qIdfW.length);
  const seenStamp = new Int32Array(qIdfW.length).fill(-1);
  for (let i = 0; i < n; i++) {
    const t = lineIds[i];
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
    cov[i] = c / qMass;
    nMatch[i] = m.length;
    maxIdf[i] = mi / maxQIdf;
    bridge[i] = br;
    prior[i] = pr === -Infinity ? 0 : 1 / (1 + Math.exp(-pr));
  }
  const maxOf = (a: Float64Array): number => {
    let m = 0;
    for (const v of a) if (v > m) m = v;
    return m;
  };
  const maxBm = maxOf(bm25);
  const maxBr = maxOf(bridge);

  // rank percentile of bm25: 1 - (lines scoring strictly higher) / n, so ties share a rank; 0 for
  // lines without a match (most of them, hence a numeric sort and a search instead of an index sort)
  const rankPct = new Float64Array(n);
  {
    const sorted = Float64Array.from(bm25).sort();
    for (let i = 0; i < n; i++) {
      const v = bm25[i];
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
  }

  // windows via prefix sums
  const windowed = (a: Float64Array, w: number): Float64Array => {
    const pre = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) pre[i + 1] = pre[i] + a[i];
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = pre[Math.min(n, i + w + 1)] - pre[Math.max(0, i - w)];
    return out;
  };
  const win2 = windowed(bm25, 2);
  const win8 = windowed(bm25, 8);
  const cwin8 = windowed(codeBm, 8);
  const maxCode = maxOf(codeBm);
  const maxCw8 = maxOf(cwin8);
  const bwin = windowed(bridge, 3);
  const maxW2 = maxOf(win2);
  const maxW8 = maxOf(win8);
  const maxBw = maxOf(bwin);

  // --- scopes: idf-mass coverage of the union of matched query terms, bridge mass
  const scopes = syn.scopes;
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
      for (const k of matched[i]) {
        if (stamp[k] === s) continue;
        stamp[k] = s;
        c += qIdfW[k];
        if (qIsCode[k]) cc += qIdfW[k];
      }
      br += bridge[i];
    }
    scopeCov[s] = c / qMass;
    scopeCodeCov[s] = codeMass > 0 ? cc / codeMass : 0;
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
  for (let i = 0; i < n; i++) bmPre[i + 1] = bmPre[i] + bm25[i];
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
  funcIds.forEach((s, r) => (funcRank[s] = funcScore[s] > 0 ? 1 - r / funcIds.length : 0));
  const top3 = new Set(funcIds.slice(0, 3).filter((s) => funcScore[s] > 0));
  const defAt = new Int32Array(n).fill(-1);
  for (let s = 0; s < S; s++) {
    const st = scopes[s].start;
    if (scopes[s].isDefinition && st >= 0 && st < n && defAt[st] < 0) defAt[st] = s;
  }
  const scopeNameHit = new Uint8Array(S);
  const scopeTb = new Uint8Array(S);
  for (let s = 0; s < S; s++) {
    const nm = scopes[s].name;
    if (!nm) continue;
    if (nm.length >= 3 && q.raw.has(nm)) scopeNameHit[s] = 1;
    if (q.tbFuncs.has(nm)) scopeTb[s] = 1;
  }

  // --- definition names: "_print_Symbol" covers "symbol" from the query; "print" is in every name of the file
  const nameCov = new Float64Array(S);
  const nameBridge = new Float64Array(S);
  const nameRank = new Float64Array(S);
  {
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
    ranked.forEach((s, r) => (nameRank[s] = 1 - r / Math.max(1, named)));
  }

  // --- strong lines and what they depend on
  const strong = new Uint8Array(n);
  const strongCut = Math.max(0.5 * maxBm, 1e-9);
  for (let i = 0; i < n; i++) if (bm25[i] >= strongCut && bm25[i] > 0) strong[i] = 1;
  const depOfStrong = new Uint8Array(n); // defines/imports a name a strong line uses
  const headerOfStrong = new Uint8Array(n);
  const importOfStrong = new Uint8Array(n);
  const near = new Float64Array(n);
  {
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
  }
  // Each name's definitions and each scope's header are marked once (strong lines share them:
  // marking per strong line would cost strong lines x definitions). A definition line is not
  // marked for its own use of the name: per name, the one strong line using it, or -2 for several.
  const strongUser = new Map<string, number>();
  const scopeDone = new Uint8Array(S);
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
  for (const [u, user] of strongUser) for (const j of syn.definitions.get(u)!) if (j >= 0 && j < n && j !== user) depOfStrong[j] = 1;

  // --- query-level and path features
  const qLen = Math.min(1, log1p(q.terms.length) / 6);
  let pathHit = 0;
  if (input.path) {
    const base = input.path.split(/[\\/]/).pop() ?? '';
    const stemName = base.replace(/\.[^.]+$/, '');
    const pt = terms(stemName);
    if (pt.length) pathHit = pt.filter((x) => q.weight.has(x)).length / pt.length;
    if (q.text.includes(base)) pathHit = 1;
  }
  const fileLog = Math.min(1, log1p(n) / 8);

  for (let i = 0; i < n; i++) {
    const o = i * F;
    const text = lines[i];
    const ls = syn.lines[i];
    let f = 0;
    X[o + f++] = maxBm > 0 ? bm25[i] / maxBm : 0;
    X[o + f++] = Math.min(1, log1p(bm25[i]) / 3);
    X[o + f++] = clamp01(cov[i]);
    X[o + f++] = Math.min(1, log1p(nMatch[i]) / 2.5);
    X[o + f++] = maxIdf[i];
    X[o + f++] = rankPct[i];
    X[o + f++] = maxW2 > 0 ? win2[i] / maxW2 : 0;
    X[o + f++] = maxW8 > 0 ? win8[i] / maxW8 : 0;
    X[o + f++] = maxCode > 0 ? codeBm[i] / maxCode : 0;
    X[o + f++] = maxCw8 > 0 ? cwin8[i] / maxCw8 : 0;
    const codeScopeAt = f++; // filled once the innermost scope is known
    // scopes
    let inner = -1;
    let outer = -1;
    let maxCov = 0;
    let nameHit = 0;
    let anyName = 0;
    let tb = 0;
    let inBest = 0;
    // definition names: innermost other definition than a function (class, struct, impl), best enclosing
    let cls = -1;
    let nameMax = 0;
    const scs = ls ? ls.scopes : [];
    for (const s of scs) {
      const sc = scopes[s];
      if (!sc) continue;
      if (sc.isDefinition) {
        if (outer < 0) outer = s;
        inner = s;
        if (!FUNC_KINDS.has(sc.kind)) cls = s;
        if (nameCov[s] > nameMax) nameMax = nameCov[s];
      }
      if (scopeCov[s] > maxCov) maxCov = scopeCov[s];
      if (scopeNameHit[s]) anyName = 1;
      if (scopeTb[s]) tb = 1;
      if (s === bestScope) inBest = 1;
    }
    // a header line belongs to the scope it opens
    {
      const s = defAt[i];
      if (s >= 0) {
        inner = s;
        if (outer < 0) outer = s;
        if (s === bestScope) inBest = 1;
        if (scopeNameHit[s]) anyName = 1;
        if (scopeTb[s]) tb = 1;
        maxCov = Math.max(maxCov, scopeCov[s]);
        if (!FUNC_KINDS.has(scopes[s].kind)) cls = s;
        nameMax = Math.max(nameMax, nameCov[s]);
      }
    }
    if (inner >= 0 && scopeNameHit[inner]) nameHit = 1;
    X[o + codeScopeAt] = inner >= 0 ? clamp01(scopeCodeCov[inner]) : 0;
    let fn = -1;
    for (const s2 of scs) if (scopes[s2] && FUNC_KINDS.has(scopes[s2].kind)) fn = s2;
    if (defAt[i] >= 0 && FUNC_KINDS.has(scopes[defAt[i]].kind)) fn = defAt[i];
    X[o + f++] = inner >= 0 ? clamp01(scopeCov[inner]) : 0;
    X[o + f++] = outer >= 0 ? clamp01(scopeCov[outer]) : 0;
    X[o + f++] = clamp01(maxCov);
    X[o + f++] = inBest;
    X[o + f++] = nameHit;
    X[o + f++] = anyName;
    X[o + f++] = tb;
    X[o + f++] = fn >= 0 && maxDensity > 0 ? density[fn] / maxDensity : 0;
    X[o + f++] = fn >= 0 ? funcRank[fn] : 0;
    X[o + f++] = fn >= 0 && top3.has(fn) ? 1 : 0;
    // definition names: innermost function, innermost other definition, best enclosing
    X[o + f++] = fn >= 0 ? nameCov[fn] : 0;
    X[o + f++] = cls >= 0 ? nameCov[cls] : 0;
    X[o + f++] = nameMax;
    X[o + f++] = inner >= 0 ? nameRank[inner] : 0;
    X[o + f++] = inner >= 0 ? nameBridge[inner] : 0;
    // verbatim evidence
    let ids = 0;
    let idHits = 0;
    for (const r of lineRaw[i]) {
      if (r.length < 4) continue;
      ids++;
      if (q.raw.has(r)) idHits++;
    }
    X[o + f++] = ids ? idHits / ids : 0;
    X[o + f++] = idHits > 0 ? 1 : 0;
    let defQ = 0;
    if (ls) for (const d of ls.defines) if (d.length >= 3 && q.raw.has(d)) defQ = 1;
    X[o + f++] = defQ;
    const trimmed = text.trim();
    // only lines whose identifiers all occur in the query can occur in it verbatim
    X[o + f++] = trimmed.length >= 12 && ids > 0 && idHits === ids && q.text.includes(trimmed) ? 1 : 0;
    // bridge
    X[o + f++] = maxBr > 0 ? bridge[i] / maxBr : 0;
    X[o + f++] = Math.min(1, log1p(bridge[i]) / 3);
    X[o + f++] = maxBw > 0 ? bwin[i] / maxBw : 0;
    X[o + f++] = inner >= 0 && maxScopeBr > 0 ? scopeBridge[inner] / maxScopeBr : 0;
    X[o + f++] = prior[i];
    // structure
    const kind = ls ? ls.kind : trimmed ? 'code' : 'blank';
    for (const k of KINDS) X[o + f++] = kind === k ? 1 : 0;
    X[o + f++] = Math.min(1, (ls ? ls.depth : 0) / 6);
    X[o + f++] = inner >= 0 ? 1 : 0;
    let isHeader = 0;
    let isDefHeader = 0;
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
    X[o + f++] = isHeader;
    X[o + f++] = isDefHeader;
    X[o + f++] = depOfStrong[i];
    X[o + f++] = importOfStrong[i];
    X[o + f++] = headerOfStrong[i];
    X[o + f++] = near[i];
    X[o + f++] = n > 1 ? i / (n - 1) : 0;
    X[o + f++] = Math.min(1, log1p(text.length) / 5);
    const indent = text.length - text.trimStart().length;
    X[o + f++] = Math.min(1, indent / 16);
    X[o + f++] = inner >= 0 ? Math.min(1, log1p(scopes[inner].end - scopes[inner].start + 1) / 7) : fileLog;
    X[o + f++] = fileLog;
    X[o + f++] = syn.hasGrammar ? 1 : 0;
    // query kind
    X[o + f++] = qLen;
    X[o + f++] = q.isQuestion;
    X[o + f++] = q.hasTraceback;
    X[o + f++] = q.hasCode;
    X[o + f++] = pathHit;
    X[o + f++] = 1;
  }
  return X;
}
