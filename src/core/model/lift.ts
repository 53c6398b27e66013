/**
 * Neighbour lift: a line within `window` lines of a strongly scored line is lifted to `alpha`
 * times that line's score. The CRF marginals are trained to be calibrated per line, but what an
 * agent needs comes in blocks (a fix touches a few adjacent lines, an answer spans a statement
 * and its neighbours), so under a budget the lines next to the best ones are worth more than
 * their own marginal says. Window and alpha are chosen by `skim train` on validation data.
 */
import { windowMax } from '../features/contextFeatures.js';

export interface LiftParams {
  window: number;
  alpha: number;
}

export function liftNeighbours(keep: Float64Array, { window, alpha }: LiftParams): Float64Array {
  const n = keep.length;
  if (window <= 0 || alpha <= 0 || n === 0) return keep;
  const best = windowMax(keep, window);
  const out = new Float64Array(n);
  // a lifted neighbour ranks just below the line that lifted it; ties fall back to its own score
  for (let i = 0; i < n; i++) out[i] = Math.max(keep[i], alpha * best[i]) * (1 - 1e-3) + 1e-3 * keep[i];
  return out;
}
