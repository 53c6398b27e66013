/**
 * Metrics for training and evaluation: P/R/F1 of the aggregate labels, and recall of labelled
 * lines under a budget with a plain top-k-by-score selection (no repair, no markers: the
 * evaluator's own stand-in for prune()'s budget mode).
 */

export interface Prf {
  tp: number;
  fp: number;
  fn: number;
}

export function addPrf(acc: Prf, keep: ArrayLike<number>, gold: ArrayLike<number>, tau: number): void {
  for (let i = 0; i < gold.length; i++) {
    const k = keep[i] >= tau;
    if (k && gold[i]) acc.tp++;
    else if (k) acc.fp++;
    else if (gold[i]) acc.fn++;
  }
}

export function prf(acc: Prf): { p: number; r: number; f1: number } {
  const p = acc.tp / Math.max(1, acc.tp + acc.fp);
  const r = acc.tp / Math.max(1, acc.tp + acc.fn);
  return { p, r, f1: p + r > 0 ? (2 * p * r) / (p + r) : 0 };
}

/**
 * Greedy top-k by score under a budget of `budget` units (line cost = its characters + newline):
 * lines are taken in decreasing score (ties: earlier line first), skipping lines that do not fit.
 */
export function selectTopK(scores: ArrayLike<number>, costs: ArrayLike<number>, budget: number): Uint8Array {
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  const keep = new Uint8Array(n);
  let used = 0;
  for (const i of order) {
    if (used + costs[i] > budget) continue;
    keep[i] = 1;
    used += costs[i];
  }
  return keep;
}

export function charCosts(lines: string[]): Float64Array {
  return Float64Array.from(lines, (l) => l.length + 1);
}

/** Recall of the labelled lines (0-based indexes) in a keep mask. */
export function recallOf(keep: ArrayLike<number>, labelled: number[]): { hit: number; total: number } {
  let hit = 0;
  for (const i of labelled) if (keep[i]) hit++;
  return { hit, total: labelled.length };
}
