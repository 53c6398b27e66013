/**
 * Selection (design 2.4): which lines to keep before repair.
 * - Threshold mode keeps every line whose keep probability reaches τ.
 * - Budget mode ranks lines (by probability, then by probability per marginal cost: ./budget.ts)
 *   and finds the largest prefix of that ranking whose repaired, rendered output fits the budget.
 *   The ranking does not depend on the budget where the search looks, so kept sets nest as the
 *   budget grows, but for what the syntax fix of each selection drops.
 */

/** Lines in keep-priority order: higher probability first, ties broken by a structural prior then position. */
export function priorityOrder(probs: Float64Array, prior?: Float64Array): number[] {
  const order = Array.from({ length: probs.length }, (_, i) => i);
  order.sort((a, b) => {
    const d = probs[b] - probs[a];
    if (d !== 0) return d;
    const pd = (prior?.[b] ?? 0) - (prior?.[a] ?? 0);
    if (pd !== 0) return pd;
    return a - b;
  });
  return order;
}

/** Keep lines at or over the threshold (one for all lines, or one per line). */
export function selectByThreshold(probs: Float64Array, threshold: number | Float64Array): Uint8Array {
  const mask = new Uint8Array(probs.length);
  for (let i = 0; i < probs.length; i++) if (probs[i] >= (typeof threshold === 'number' ? threshold : threshold[i])) mask[i] = 1;
  return mask;
}

/**
 * Per-line thresholds: the global one, raised in each segment to `floor` times the segment's best
 * score (scores above 1, i.e. pinned lines, do not count as the best).
 */
export function segmentThresholds(probs: Float64Array, segments: number[][], threshold: number, floor: number): Float64Array {
  const out = new Float64Array(probs.length).fill(threshold);
  if (floor <= 0) return out;
  for (const lines of segments) {
    let best = 0;
    for (const i of lines) if (probs[i] <= 1 && probs[i] > best) best = probs[i];
    const t = Math.max(threshold, floor * best);
    for (const i of lines) out[i] = t;
  }
  return out;
}

export interface Costed {
  /** Token cost of the rendered output for this selection. */
  cost: number;
}

/**
 * The largest k in [0, n] such that `materialize(k).cost <= budget`: galloping up from k = 1
 * (1, 2, 4, ...) to bracket the answer, then binary search inside the bracket. Cost is only
 * nearly monotone in k (markers merge, repair pulls lines in steps), so galloping from the small
 * end avoids one expensive early seed hiding every cheaper selection. Returns k = -1 when even
 * k = 0 does not fit.
 */
export function selectByBudget<T extends Costed>(n: number, budget: number, materialize: (k: number) => T): { k: number; result: T | null } {
  const zero = materialize(0);
  if (zero.cost > budget) return { k: -1, result: null };
  let best = 0;
  let bestResult: T = zero;
  let step = 1;
  let hi = n;
  while (step <= n) {
    const r = materialize(step);
    if (r.cost > budget) {
      hi = step - 1;
      break;
    }
    best = step;
    bestResult = r;
    if (step === n) return { k: best, result: bestResult };
    step = Math.min(n, step * 2);
  }
  let lo = best;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const r = materialize(mid);
    if (r.cost <= budget) {
      lo = mid;
      best = mid;
      bestResult = r;
    } else {
      hi = mid - 1;
    }
  }
  return { k: best, result: bestResult };
}

/**
 * Budget-mode priorities without isolated peaks: a morphological opening of the keep scores over
 * each segment's non-blank lines (erosion then dilation with a window of `width` lines). A line
 * ranks no higher than the best run of `width` consecutive lines that contains it, so a lone
 * high-scoring line stops costing its own tokens plus a marker ahead of a whole relevant block.
 * Blank lines keep their score (they cost a token and are filled as gaps); pinned scores (> 1)
 * are untouched.
 */
export function openedPriorities(probs: Float64Array, segments: number[][], isBlank: (i: number) => boolean, width: number): Float64Array {
  const out = Float64Array.from(probs);
  if (width < 2) return out;
  for (const lines of segments) {
    const idx = lines.filter((i) => !isBlank(i));
    const m = idx.length;
    if (m < width) continue;
    const p = idx.map((i) => probs[i]);
    // erosion: min over each window [s, s + width - 1]
    const eroded = new Float64Array(m - width + 1);
    for (let s = 0; s + width <= m; s++) {
      let v = Infinity;
      for (let t = s; t < s + width; t++) if (p[t] < v) v = p[t];
      eroded[s] = v;
    }
    // dilation: a line takes the best window that contains it
    for (let t = 0; t < m; t++) {
      let v = 0;
      for (let s = Math.max(0, t - width + 1); s <= Math.min(t, m - width); s++) if (eroded[s] > v) v = eroded[s];
      const i = idx[t];
      if (probs[i] <= 1 && v < probs[i]) out[i] = v;
    }
  }
  return out;
}
