/**
 * Context features for the second ("auto-context") stage of the skimmer: per line, what the first
 * stage thinks of the lines around it and of its enclosing definition. A line-level model sees one
 * line at a time (its CRF only links neighbours); the places an issue or a goal hint points at come
 * in blocks, so the second stage re-scores each line knowing how strongly its window, its function
 * and the file as a whole were scored. Everything is relative to the file's best line, so the
 * features mean the same in a 40-line and a 4,000-line file.
 */
import type { SyntaxIndex } from '../types.js';

export const CONTEXT_FEATURE_NAMES: string[] = [
  'ctx_p',
  'ctx_rel',
  'ctx_rank_pct',
  'ctx_win2_max',
  'ctx_win5_max',
  'ctx_win10_max',
  'ctx_win20_max',
  'ctx_win5_mean',
  'ctx_win20_mean',
  'ctx_scope_max',
  'ctx_scope_mean',
  'ctx_scope_rank_pct',
  'ctx_outer_scope_max',
  'ctx_doc',
  'ctx_strong_share',
  'ctx_near_strong',
  // log scale: most first-stage marginals are tiny, and 1e-4 vs 1e-2 still says a lot
  'ctx_log_rel',
  'ctx_log_win5_max',
  'ctx_log_win20_max',
  'ctx_log_scope_max',
];

export const NUM_CONTEXT_FEATURES = CONTEXT_FEATURE_NAMES.length;

/** Lines whose first-stage score is at least this share of the file's best count as "strong". */
const STRONG = 0.5;

/**
 * Context features of every line: a row-major n x NUM_CONTEXT_FEATURES matrix computed from the
 * first stage's keep marginals `p` and document score.
 */
export function contextFeatures(p: ArrayLike<number>, docScore: number, syntax: SyntaxIndex, n: number): Float64Array {
  const C = NUM_CONTEXT_FEATURES;
  const out = new Float64Array(n * C);
  if (n === 0) return out;
  let pmax = 1e-9;
  for (let i = 0; i < n; i++) if (p[i] > pmax) pmax = p[i];
  const rel = new Float64Array(n);
  for (let i = 0; i < n; i++) rel[i] = p[i] / pmax;

  // rank percentile: 1 for the best line, ties share the better rank
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => rel[b] - rel[a] || a - b);
  const rankPct = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const i = order[r];
    rankPct[i] = r > 0 && rel[order[r - 1]] === rel[i] ? rankPct[order[r - 1]] : 1 - r / Math.max(1, n - 1);
  }

  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + rel[i];
  const winMean = (i: number, w: number): number => {
    const lo = Math.max(0, i - w);
    const hi = Math.min(n, i + w + 1);
    return (prefix[hi] - prefix[lo]) / (hi - lo);
  };
  const win2 = windowMax(rel, 2);
  const win5 = windowMax(rel, 5);
  const win10 = windowMax(rel, 10);
  const win20 = windowMax(rel, 20);

  // innermost and outermost definition scope of each line
  const defs = syntax.scopes.filter((s) => s.isDefinition).sort((a, b) => b.end - b.start - (a.end - a.start));
  // and each scope's best, summed and counted scores
  const inner = new Int32Array(n).fill(-1);
  const outer = new Int32Array(n).fill(-1);
  const sMax = new Float64Array(defs.length);
  const sSum = new Float64Array(defs.length);
  const sLen = new Float64Array(defs.length);
  defs.forEach((s, k) => {
    const end = Math.min(s.end, n - 1);
    for (let i = Math.max(0, s.start); i <= end; i++) {
      inner[i] = k; // larger scopes come first: the last write is the innermost
      if (outer[i] < 0) outer[i] = k;
      if (rel[i] > sMax[k]) sMax[k] = rel[i];
      sSum[k] += rel[i];
      sLen[k]++;
    }
  });
  // rank of each scope by its best line, among the scopes that are innermost somewhere
  const used = [...new Set(Array.from(inner).filter((k) => k >= 0))].sort((a, b) => sMax[b] - sMax[a] || a - b);
  const scopeRank = new Float64Array(defs.length);
  used.forEach((k, r) => (scopeRank[k] = 1 - r / Math.max(1, used.length)));

  // strong lines and the distance to the nearest one
  let strong = 0;
  const dist = new Float64Array(n).fill(Infinity);
  let last = -Infinity;
  for (let i = 0; i < n; i++) {
    if (rel[i] >= STRONG) {
      strong++;
      last = i;
    }
    dist[i] = i - last;
  }
  last = Infinity;
  for (let i = n - 1; i >= 0; i--) {
    if (rel[i] >= STRONG) last = i;
    dist[i] = Math.min(dist[i], last - i);
  }
  const strongShare = strong / n;

  for (let i = 0; i < n; i++) {
    const o = i * C;
    const k = inner[i];
    const ko = outer[i];
    out[o] = p[i];
    out[o + 1] = rel[i];
    out[o + 2] = rankPct[i];
    out[o + 3] = win2[i];
    out[o + 4] = win5[i];
    out[o + 5] = win10[i];
    out[o + 6] = win20[i];
    out[o + 7] = winMean(i, 5);
    out[o + 8] = winMean(i, 20);
    out[o + 9] = k >= 0 ? sMax[k] : 0;
    out[o + 10] = k >= 0 ? sSum[k] / Math.max(1, sLen[k]) : 0;
    out[o + 11] = k >= 0 ? scopeRank[k] : 0;
    out[o + 12] = ko >= 0 ? sMax[ko] : 0;
    out[o + 13] = docScore;
    out[o + 14] = strongShare;
    out[o + 15] = 1 / (1 + dist[i] / 5);
    out[o + 16] = logScale(rel[i]);
    out[o + 17] = logScale(win5[i]);
    out[o + 18] = logScale(win20[i]);
    out[o + 19] = k >= 0 ? logScale(sMax[k]) : 0;
  }
  return out;
}

/** log10 of a share in (0, 1] mapped to [0, 1]: 1 -> 1, 1e-8 or less -> 0. */
function logScale(v: number): number {
  return v <= 1e-8 ? 0 : 1 + Math.log10(v) / 8;
}

/** Max of `x` over [i - w, i + w] for every i (a monotonic deque: O(n) whatever w). */
export function windowMax(x: Float64Array, w: number): Float64Array {
  const n = x.length;
  const out = new Float64Array(n);
  const dq = new Int32Array(n);
  let head = 0;
  let tail = 0;
  let next = 0; // next index to push
  for (let i = 0; i < n; i++) {
    const hi = Math.min(n - 1, i + w);
    while (next <= hi) {
      while (tail > head && x[dq[tail - 1]] <= x[next]) tail--;
      dq[tail++] = next++;
    }
    while (dq[head] < i - w) head++;
    out[i] = x[dq[head]];
  }
  return out;
}

/** Row-wise concatenation of the line features (n x F) and the context features (n x C). */
export function withContext(X: ArrayLike<number>, F: number, Cx: Float64Array, n: number): Float64Array {
  const C = NUM_CONTEXT_FEATURES;
  const out = new Float64Array(n * (F + C));
  for (let i = 0; i < n; i++) {
    const o = i * (F + C);
    for (let j = 0; j < F; j++) out[o + j] = X[i * F + j];
    for (let j = 0; j < C; j++) out[o + F + j] = Cx[i * C + j];
  }
  return out;
}
