/**
 * The feature columns and the groups that write them: each group writes its columns of every row
 * by name (`COL`).
 */
import type { LineKind, SyntaxIndex } from '../types.js';
import { terms } from './lexical.js';
import type { QueryInfo } from './queryAnalysis.js';
import type { Enclosing, NameStats, ScopeStats, StrongLines } from './scopeStatistics.js';
import { type LineMatch, maxOf, windowed } from './termStatistics.js';

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

const log1p = Math.log1p;
const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
const F = NUM_FEATURES;

/** Lexical match of the line and its windows: BM25, coverage, rank, code-term BM25. */
export function writeLexical(X: Float64Array, lm: LineMatch, n: number): void {
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
export function writeScopes(X: Float64Array, syn: SyntaxIndex, ss: ScopeStats, enc: Enclosing, n: number): void {
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
export function writeNames(X: Float64Array, syn: SyntaxIndex, ns: NameStats, defAt: Int32Array, enc: Enclosing, n: number): void {
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
export function writeVerbatim(X: Float64Array, lines: string[], syn: SyntaxIndex, lineRaw: string[][], q: QueryInfo): void {
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
export function writeBridge(X: Float64Array, lm: LineMatch, ss: ScopeStats, enc: Enclosing, n: number): void {
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
export function writeStructure(X: Float64Array, lines: string[], syn: SyntaxIndex, enc: Enclosing, st: StrongLines): void {
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
export function writeQueryKind(X: Float64Array, q: QueryInfo, path: string | undefined, n: number): void {
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
