/**
 * The LaMR-style skimmer: shared MLP h_i = tanh(W1 x_i + b1); two rubric heads
 * (semantic, dependency) with emissions s_i^k = w_k . h_i + b_k and their own CRFs; a per-line
 * softmax gate g_i = softmax(Wg h_i + bg); the fused emission s_i = sum_k g_ik s_i^k decoded by a
 * fused CRF; a document relevance head on [mean h, max h].
 *
 * All parameters live in one Float64Array (simple Adam, simple I/O); named views point into it.
 * Inference only: the loss, its gradient, initialization and the optimizer are in src/train.
 * Mode 'single' is the SWE-Pruner-style ablation: gate fixed to the semantic head, rubric loss off.
 */
import { type CrfParams, marginals, unaryFromEmissions, viterbi } from './crf.js';
import { type HiddenKernel, hiddenKernel } from './hiddenWasm.js';

export type ModelMode = 'lamr' | 'single';

export interface Layout {
  F: number;
  H: number;
  W1: number;
  b1: number;
  wS: number;
  bS: number;
  wD: number;
  bD: number;
  Wg: number;
  bg: number;
  crfS: number;
  crfD: number;
  crfF: number;
  v: number;
  c: number;
  size: number;
}

export function makeLayout(F: number, H: number): Layout {
  let o = 0;
  const take = (k: number): number => {
    const at = o;
    o += k;
    return at;
  };
  const L = {
    F,
    H,
    W1: take(H * F),
    b1: take(H),
    wS: take(H),
    bS: take(1),
    wD: take(H),
    bD: take(1),
    Wg: take(2 * H),
    bg: take(2),
    crfS: take(8),
    crfD: take(8),
    crfF: take(8),
    v: take(2 * H),
    c: take(1),
    size: 0,
  };
  L.size = o;
  return L;
}

function crfView(p: Float64Array, at: number): CrfParams {
  return { trans: p.subarray(at, at + 4), start: p.subarray(at + 4, at + 6), end: p.subarray(at + 6, at + 8) };
}

/** tanh via exp (same value to ~1e-16, faster than Math.tanh in V8); clamped so exp cannot overflow. */
function tanh(x: number): number {
  const c = x > 20 ? 20 : x < -20 ? -20 : x;
  const e = Math.exp(2 * c);
  return (e - 1) / (e + 1);
}

export interface Inference {
  keep: Float64Array;
  viterbi: Uint8Array;
  gateSemantic: Float64Array;
  docScore: number;
  /** Marginals of the rubric CRFs (diagnostics / --explain). */
  semantic?: Float64Array;
  dependency?: Float64Array;
}

export class LamrModel {
  readonly L: Layout;
  readonly p: Float64Array;
  constructor(
    readonly F: number,
    readonly H: number,
    readonly mode: ModelMode = 'lamr',
    params?: Float64Array,
  ) {
    this.L = makeLayout(F, H);
    this.p = params ?? new Float64Array(this.L.size);
    if (params && params.length !== this.L.size) throw new Error(`model has ${params.length} parameters, expected ${this.L.size}`);
  }

  /**
   * Hidden layer for n lines (row-major n x H), the hot loop of scoring. Columns with one value on
   * every line (query- and file-level features) are added to the bias once instead of once per
   * line; each line then gathers its non-zero features (about 40%) and accumulates eight hidden
   * units at a time in locals over a transposed W1. Every unit sums bias + features in feature
   * order, so the result does not depend on the blocking. With `kernel` (default: the WebAssembly
   * one when it compiled) the sums are made there instead, the same sums in the same order.
   */
  hidden(X: Float64Array | Float32Array, n: number, kernel: HiddenKernel | null = hiddenKernel()): Float64Array {
    const { F, H } = this.L;
    const p = this.p;
    const W1 = this.L.W1;
    const WT = new Float64Array(F * H);
    for (let j = 0; j < H; j++) for (let f = 0; f < F; f++) WT[f * H + j] = p[W1 + j * F + f];
    const bias = Float64Array.from(p.subarray(this.L.b1, this.L.b1 + H));
    const varying: number[] = [];
    for (let f = 0; f < F; f++) {
      const v = X[f];
      let constant = n > 1;
      for (let i = 1; i < n && constant; i++) if (X[i * F + f] !== v) constant = false;
      if (!constant) varying.push(f);
      else if (v !== 0) for (let j = 0; j < H; j++) bias[j] += WT[f * H + j] * v;
    }
    const h = new Float64Array(n * H);
    // the same sums in WebAssembly (./hiddenWasm.ts) when it is there; tanh here either way
    const pre = n > 0 && kernel ? kernel.preActivations(X, n, F, Int32Array.from(varying), WT, H, bias) : null;
    if (pre) {
      for (let k = 0; k < n * H; k++) h[k] = tanh(pre[k]);
      return h;
    }
    const rowAt = new Int32Array(varying.length); // offsets into WT of this line's non-zero features
    const val = new Float64Array(varying.length);
    const H8 = H - (H % 8);
    for (let i = 0; i < n; i++) {
      const xo = i * F;
      let m = 0;
      for (let k = 0; k < varying.length; k++) {
        const f = varying[k];
        const xv = X[xo + f];
        if (xv === 0) continue;
        rowAt[m] = f * H;
        val[m++] = xv;
      }
      const ho = i * H;
      let j = 0;
      for (; j < H8; j += 8) {
        let a0 = bias[j],
          a1 = bias[j + 1],
          a2 = bias[j + 2],
          a3 = bias[j + 3];
        let a4 = bias[j + 4],
          a5 = bias[j + 5],
          a6 = bias[j + 6],
          a7 = bias[j + 7];
        for (let k = 0; k < m; k++) {
          const wo = rowAt[k] + j;
          const xv = val[k];
          a0 += WT[wo] * xv;
          a1 += WT[wo + 1] * xv;
          a2 += WT[wo + 2] * xv;
          a3 += WT[wo + 3] * xv;
          a4 += WT[wo + 4] * xv;
          a5 += WT[wo + 5] * xv;
          a6 += WT[wo + 6] * xv;
          a7 += WT[wo + 7] * xv;
        }
        h[ho + j] = tanh(a0);
        h[ho + j + 1] = tanh(a1);
        h[ho + j + 2] = tanh(a2);
        h[ho + j + 3] = tanh(a3);
        h[ho + j + 4] = tanh(a4);
        h[ho + j + 5] = tanh(a5);
        h[ho + j + 6] = tanh(a6);
        h[ho + j + 7] = tanh(a7);
      }
      for (; j < H; j++) {
        let a = bias[j];
        for (let k = 0; k < m; k++) a += WT[rowAt[k] + j] * val[k];
        h[ho + j] = tanh(a);
      }
    }
    return h;
  }

  /** Emissions, gate and fused emission from the hidden layer. */
  heads(h: Float64Array, n: number): { sS: Float64Array; sD: Float64Array; g0: Float64Array; sF: Float64Array } {
    const { H } = this.L;
    const p = this.p;
    const L = this.L;
    const sS = new Float64Array(n);
    const sD = new Float64Array(n);
    const g0 = new Float64Array(n);
    const sF = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let a = p[L.bS];
      let d = p[L.bD];
      let z0 = p[L.bg];
      let z1 = p[L.bg + 1];
      const ho = i * H;
      for (let j = 0; j < H; j++) {
        const hv = h[ho + j];
        a += p[L.wS + j] * hv;
        d += p[L.wD + j] * hv;
        z0 += p[L.Wg + j] * hv;
        z1 += p[L.Wg + H + j] * hv;
      }
      sS[i] = a;
      sD[i] = d;
      const g = this.mode === 'single' ? 1 : 1 / (1 + Math.exp(z1 - z0));
      g0[i] = g;
      sF[i] = g * a + (1 - g) * d;
    }
    return { sS, sD, g0, sF };
  }

  docLogit(h: Float64Array, n: number): { logit: number; pool: Float64Array; argmax: Int32Array } {
    const { H } = this.L;
    const pool = new Float64Array(2 * H);
    const argmax = new Int32Array(H);
    for (let j = 0; j < H; j++) pool[H + j] = -Infinity;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < H; j++) {
        const v = h[i * H + j];
        pool[j] += v / n;
        if (v > pool[H + j]) {
          pool[H + j] = v;
          argmax[j] = i;
        }
      }
    }
    if (n === 0) for (let j = 0; j < H; j++) pool[H + j] = 0;
    let z = this.p[this.L.c];
    for (let k = 0; k < 2 * H; k++) z += this.p[this.L.v + k] * pool[k];
    return { logit: z, pool, argmax };
  }

  crf(which: 'S' | 'D' | 'F'): CrfParams {
    return crfView(this.p, which === 'S' ? this.L.crfS : which === 'D' ? this.L.crfD : this.L.crfF);
  }

  /** Marginals, Viterbi path (unless `path` is false: the first stage's is never used), gate and document score. */
  infer(X: Float64Array | Float32Array, n: number, diagnostics = false, path = true): Inference {
    const h = this.hidden(X, n);
    const { sS, sD, g0, sF } = this.heads(h, n);
    const uF = unaryFromEmissions(sF);
    const keep = marginals(uF, this.crf('F'));
    const d = this.docLogit(h, n);
    const out: Inference = { keep, viterbi: path ? viterbi(uF, this.crf('F')) : new Uint8Array(0), gateSemantic: g0, docScore: 1 / (1 + Math.exp(-d.logit)) };
    if (diagnostics) {
      out.semantic = marginals(unaryFromEmissions(sS), this.crf('S'));
      out.dependency = marginals(unaryFromEmissions(sD), this.crf('D'));
    }
    return out;
  }
}
