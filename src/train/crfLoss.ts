/**
 * The CRF's training loss (core/model/crf.ts): the negative log-likelihood of a labelled path and
 * its exact gradient with respect to every potential.
 */
import { type CrfParams, forwardBackward } from '../core/model/crf.js';

export interface CrfGrad {
  /** d loss / d u (n x 2). */
  unary: Float64Array;
  trans: Float64Array;
  start: Float64Array;
  end: Float64Array;
}

/** Score of one labelled path. */
export function pathScore(u: Float64Array, p: CrfParams, y: ArrayLike<number>): number {
  const n = u.length / 2;
  if (n === 0) return 0;
  let s = p.start[y[0]] + p.end[y[n - 1]];
  for (let i = 0; i < n; i++) {
    s += u[i * 2 + y[i]];
    if (i > 0) s += p.trans[y[i - 1] * 2 + y[i]];
  }
  return s;
}

/**
 * Negative log-likelihood of y and its exact gradient w.r.t. all potentials:
 * d NLL / d u[i,y] = P(y_i=y) - [y_i=y]; d/d trans[a,b] = sum_i P(y_i=a,y_{i+1}=b) - count(a->b); same idea for start/end.
 */
export function nllAndGrad(u: Float64Array, p: CrfParams, y: ArrayLike<number>): { nll: number; grad: CrfGrad } {
  const n = u.length / 2;
  const grad: CrfGrad = {
    unary: new Float64Array(n * 2),
    trans: new Float64Array(4),
    start: new Float64Array(2),
    end: new Float64Array(2),
  };
  if (n === 0) return { nll: 0, grad };
  const { alpha, beta, logZ } = forwardBackward(u, p);
  const t = p.trans;
  for (let i = 0; i < n; i++) {
    const m1 = Math.exp(alpha[i * 2 + 1] + beta[i * 2 + 1] - logZ);
    grad.unary[i * 2] = 1 - m1 - (y[i] === 0 ? 1 : 0);
    grad.unary[i * 2 + 1] = m1 - (y[i] === 1 ? 1 : 0);
    if (i === 0) {
      grad.start[0] += 1 - m1 - (y[0] === 0 ? 1 : 0);
      grad.start[1] += m1 - (y[0] === 1 ? 1 : 0);
    }
    if (i === n - 1) {
      grad.end[0] += 1 - m1 - (y[i] === 0 ? 1 : 0);
      grad.end[1] += m1 - (y[i] === 1 ? 1 : 0);
    }
    if (i < n - 1) {
      for (let a = 0; a < 2; a++) {
        for (let b = 0; b < 2; b++) {
          const lp = alpha[i * 2 + a] + t[a * 2 + b] + u[(i + 1) * 2 + b] + beta[(i + 1) * 2 + b] - logZ;
          grad.trans[a * 2 + b] += Math.exp(lp);
        }
      }
      grad.trans[y[i] * 2 + y[i + 1]] -= 1;
    }
  }
  return { nll: logZ - pathScore(u, p, y), grad };
}
