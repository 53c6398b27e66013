/** Random lines for the LaMR model's tests: n x F features in [0, 1) and random labels, from a seed. */
import { type Labels, mulberry32 } from '../../src/train/lamrLoss.js';

export function sample(n: number, F: number, seed: number): { X: Float64Array; y: Labels } {
  const r = mulberry32(seed);
  const X = Float64Array.from({ length: n * F }, () => r());
  const bits = () => Uint8Array.from({ length: n }, () => (r() < 0.3 ? 1 : 0));
  return { X, y: { agg: bits(), sem: bits(), dep: bits(), doc: 1 } };
}
