/**
 * Neighbour lift: a line within `window` lines of a strongly scored line is lifted to `alpha`
 * times that line's score. The CRF marginals are trained to be calibrated per line, but what an
 * agent needs comes in blocks (a fix touches a few adjacent lines, an answer spans a statement
 * and its neighbours), so under a budget the lines next to the best ones are worth more than
 * their own marginal says. Window and alpha are chosen by `skim train` on validation data.
 */
export interface LiftParams {
  window: number;
  alpha: number;
}

export function liftNeighbours(keep: Float64Array, { window, alpha }: LiftParams): Float64Array {
  const n = keep.length;
  if (window <= 0 || alpha <= 0 || n === 0) return keep;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let m = 0;
    const hi = Math.min(n - 1, i + window);
    for (let j = Math.max(0, i - window); j <= hi; j++) if (keep[j] > m) m = keep[j];
    // a lifted neighbour ranks just below the line that lifted it; ties fall back to its own score
    out[i] = Math.max(keep[i], alpha * m) * (1 - 1e-3) + 1e-3 * keep[i];
  }
  return out;
}
