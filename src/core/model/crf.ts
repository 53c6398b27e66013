/**
 * Linear-chain CRF over binary labels (0 = prune, 1 = keep), all in log space.
 *
 * Potentials: unary u[i*2+y] (n x 2), transitions trans[a*2+b] (score of y_i=a -> y_{i+1}=b),
 * start[y], end[y]. The score of a path y is
 *   start[y_0] + sum_i u[i,y_i] + sum_i trans[y_i, y_{i+1}] + end[y_{n-1}].
 * Our models put the emission on label 1 only (u[i,0] = 0, u[i,1] = s_i); the math here is general.
 * Inference only: the training loss and its gradient are in src/train/crfLoss.ts.
 */

export interface CrfParams {
  /** 2x2 transition scores, row-major: trans[a*2+b] for a -> b. */
  trans: Float64Array;
  start: Float64Array;
  end: Float64Array;
}

export function logAddExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/** Unary matrix from per-line keep emissions: u[i,0]=0, u[i,1]=s_i. */
export function unaryFromEmissions(s: ArrayLike<number>): Float64Array {
  const u = new Float64Array(s.length * 2);
  for (let i = 0; i < s.length; i++) u[i * 2 + 1] = s[i];
  return u;
}

/** Forward (alpha) and backward (beta) log messages, and log Z. */
export function forwardBackward(u: Float64Array, p: CrfParams): { alpha: Float64Array; beta: Float64Array; logZ: number } {
  const n = u.length / 2;
  const alpha = new Float64Array(n * 2);
  const beta = new Float64Array(n * 2);
  if (n === 0) return { alpha, beta, logZ: 0 };
  const t = p.trans;
  alpha[0] = p.start[0] + u[0];
  alpha[1] = p.start[1] + u[1];
  for (let i = 1; i < n; i++) {
    const a0 = alpha[(i - 1) * 2];
    const a1 = alpha[(i - 1) * 2 + 1];
    alpha[i * 2] = logAddExp(a0 + t[0], a1 + t[2]) + u[i * 2];
    alpha[i * 2 + 1] = logAddExp(a0 + t[1], a1 + t[3]) + u[i * 2 + 1];
  }
  beta[(n - 1) * 2] = p.end[0];
  beta[(n - 1) * 2 + 1] = p.end[1];
  for (let i = n - 2; i >= 0; i--) {
    const b0 = beta[(i + 1) * 2] + u[(i + 1) * 2];
    const b1 = beta[(i + 1) * 2 + 1] + u[(i + 1) * 2 + 1];
    beta[i * 2] = logAddExp(t[0] + b0, t[1] + b1);
    beta[i * 2 + 1] = logAddExp(t[2] + b0, t[3] + b1);
  }
  const logZ = logAddExp(alpha[(n - 1) * 2] + p.end[0], alpha[(n - 1) * 2 + 1] + p.end[1]);
  return { alpha, beta, logZ };
}

/** P(y_i = 1) for every i. */
export function marginals(u: Float64Array, p: CrfParams): Float64Array {
  const n = u.length / 2;
  const { alpha, beta, logZ } = forwardBackward(u, p);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.exp(alpha[i * 2 + 1] + beta[i * 2 + 1] - logZ);
  return out;
}

/** Most likely label path (Viterbi), ties broken towards 0 for determinism. */
export function viterbi(u: Float64Array, p: CrfParams): Uint8Array {
  const n = u.length / 2;
  const path = new Uint8Array(n);
  if (n === 0) return path;
  const t = p.trans;
  const back = new Uint8Array(n * 2);
  let d0 = p.start[0] + u[0];
  let d1 = p.start[1] + u[1];
  for (let i = 1; i < n; i++) {
    const from0to0 = d0 + t[0];
    const from1to0 = d1 + t[2];
    const from0to1 = d0 + t[1];
    const from1to1 = d1 + t[3];
    back[i * 2] = from1to0 > from0to0 ? 1 : 0;
    back[i * 2 + 1] = from1to1 > from0to1 ? 1 : 0;
    const n0 = Math.max(from0to0, from1to0) + u[i * 2];
    const n1 = Math.max(from0to1, from1to1) + u[i * 2 + 1];
    d0 = n0;
    d1 = n1;
  }
  let y = d1 + p.end[1] > d0 + p.end[0] ? 1 : 0;
  for (let i = n - 1; i >= 0; i--) {
    path[i] = y;
    if (i > 0) y = back[i * 2 + y];
  }
  return path;
}
