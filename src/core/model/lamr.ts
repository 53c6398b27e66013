/**
 * The LaMR-style skimmer: shared MLP h_i = tanh(W1 x_i + b1); two rubric heads
 * (semantic, dependency) with emissions s_i^k = w_k . h_i + b_k and their own CRFs; a per-line
 * softmax gate g_i = softmax(Wg h_i + bg); the fused emission s_i = sum_k g_ik s_i^k decoded by a
 * fused CRF; a document relevance head on [mean h, max h].
 *
 * All parameters live in one Float64Array (simple Adam, simple I/O); named views point into it.
 * Mode 'single' is the SWE-Pruner-style ablation: gate fixed to the semantic head, rubric loss off.
 */
import { type CrfParams, marginals, nllAndGrad, unaryFromEmissions, viterbi } from './crf.js';
import { type HiddenKernel, hiddenKernel } from './hiddenWasm.js';

export type ModelMode = 'lamr' | 'single';

export interface LossWeights {
  /** Interpolation between fused loss (1-lambda) and rubric losses (lambda), LaMR: 0.6. */
  lambda: number;
  /** Rubric weights (semantic, dependency), LaMR: 1.0, 0.7. */
  rubric: [number, number];
  /** Document relevance loss weight. */
  doc: number;
  /** Gate balance (negative entropy of the mean gate) weight, LaMR: 0.002. */
  gate: number;
  /** L2 on the MLP weights. */
  l2: number;
  /**
   * Listwise ranking loss on the fused emissions of a file with labelled lines: cross-entropy
   * between softmax over the file's lines and the uniform distribution over its labelled lines.
   * The CRF losses are per line; a budget keeps the best-ranked lines of a file, so this term
   * teaches the order within a file directly. Not divided by the file's length. Default 0 (off).
   */
  rank?: number;
}

/** The shipped recipe (models/MODEL_CARD.md): LaMR's loss with lambda 0.25 (its 0.6 measured worse here) and the listwise term. */
export const DEFAULT_LOSS: LossWeights = { lambda: 0.25, rubric: [1.0, 0.7], doc: 0.1, gate: 0.002, l2: 1e-5, rank: 0.3 };

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

/** Deterministic PRNG (mulberry32). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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

export interface Labels {
  /** Aggregate keep labels (0/1 per line). */
  agg: Uint8Array;
  sem: Uint8Array;
  dep: Uint8Array;
  /** 1 when the file is relevant to the query (gold file), 0 for a distractor. */
  doc: number;
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

  init(seed: number): void {
    const r = mulberry32(seed);
    const gauss = (): number => {
      const u = Math.max(1e-12, r());
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
    };
    const { L, p } = this;
    const s1 = 1 / Math.sqrt(L.F);
    for (let k = 0; k < L.H * L.F; k++) p[L.W1 + k] = gauss() * s1;
    const s2 = 1 / Math.sqrt(L.H);
    for (let k = 0; k < L.H; k++) {
      p[L.wS + k] = gauss() * s2;
      p[L.wD + k] = gauss() * s2;
      p[L.Wg + k] = gauss() * 0.1 * s2;
      p[L.Wg + L.H + k] = gauss() * 0.1 * s2;
      p[L.v + k] = gauss() * 0.1 * s2;
      p[L.v + L.H + k] = gauss() * 0.1 * s2;
    }
    // keep lines are rare: start the emissions low
    p[L.bS] = -2;
    p[L.bD] = -2;
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
        let a0 = bias[j], a1 = bias[j + 1], a2 = bias[j + 2], a3 = bias[j + 3];
        let a4 = bias[j + 4], a5 = bias[j + 5], a6 = bias[j + 6], a7 = bias[j + 7];
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

  /**
   * Loss of one sample and its gradient, accumulated into `grad` (scaled by `weight`).
   * Returns the loss parts for monitoring.
   */
  lossAndGrad(X: Float64Array | Float32Array, n: number, y: Labels, grad: Float64Array, weight: number, lw: LossWeights): { fused: number; rubric: number; doc: number; rank: number } {
    if (n === 0) return { fused: 0, rubric: 0, doc: 0, rank: 0 };
    const { F, H } = this.L;
    const L = this.L;
    const p = this.p;
    const h = this.hidden(X, n);
    const { sS, sD, g0, sF } = this.heads(h, n);
    const single = this.mode === 'single';
    const inv = 1 / n;
    const wF = single ? 1 : 1 - lw.lambda;

    const fusedRes = nllAndGrad(unaryFromEmissions(sF), this.crf('F'), y.agg);
    const dsF = new Float64Array(n);
    for (let i = 0; i < n; i++) dsF[i] = fusedRes.grad.unary[i * 2 + 1];
    const addCrf = (at: number, g: { trans: Float64Array; start: Float64Array; end: Float64Array }, scale: number): void => {
      for (let k = 0; k < 4; k++) grad[at + k] += g.trans[k] * scale;
      for (let k = 0; k < 2; k++) {
        grad[at + 4 + k] += g.start[k] * scale;
        grad[at + 6 + k] += g.end[k] * scale;
      }
    };
    addCrf(L.crfF, fusedRes.grad, weight * wF * inv);
    // listwise ranking term: its gradient on the fused emission, pre-multiplied by n because the
    // backprop below scales every per-line gradient by 1/n
    const { loss: rankLoss, grad: dRank } = listwiseRank(sF, y.agg, lw.rank ?? 0);
    for (let i = 0; i < n; i++) dRank[i] *= n;

    const dsS = new Float64Array(n);
    const dsD = new Float64Array(n);
    const dz0 = new Float64Array(n); // d loss / d (gate logit 0 - gate logit 1) via g0
    let rubricLoss = 0;
    if (!single) {
      const rs = nllAndGrad(unaryFromEmissions(sS), this.crf('S'), y.sem);
      const rd = nllAndGrad(unaryFromEmissions(sD), this.crf('D'), y.dep);
      const cS = lw.lambda * lw.rubric[0];
      const cD = lw.lambda * lw.rubric[1];
      rubricLoss = cS * rs.nll + cD * rd.nll;
      addCrf(L.crfS, rs.grad, weight * cS * inv);
      addCrf(L.crfD, rd.grad, weight * cD * inv);
      // gate balance: loss = gate * sum_k gbar_k log gbar_k
      let gbar = 0;
      for (let i = 0; i < n; i++) gbar += g0[i];
      gbar = Math.min(1 - 1e-9, Math.max(1e-9, gbar * inv));
      const dgbar = lw.gate * (Math.log(gbar) - Math.log(1 - gbar)); // d/dgbar of g log g + (1-g) log(1-g)
      for (let i = 0; i < n; i++) {
        const df = dsF[i] * wF + dRank[i];
        dsS[i] = df * g0[i] + cS * rs.grad.unary[i * 2 + 1];
        dsD[i] = df * (1 - g0[i]) + cD * rd.grad.unary[i * 2 + 1];
        const dg = df * (sS[i] - sD[i]) + dgbar; // the 1/n of d gbar / d g_i comes with sc below
        dz0[i] = dg * g0[i] * (1 - g0[i]);
      }
    } else {
      for (let i = 0; i < n; i++) dsS[i] = dsF[i] + dRank[i];
    }

    // document head (binary cross-entropy)
    const d = this.docLogit(h, n);
    const prob = 1 / (1 + Math.exp(-d.logit));
    const docLoss = -(y.doc * Math.log(Math.max(prob, 1e-12)) + (1 - y.doc) * Math.log(Math.max(1 - prob, 1e-12)));
    const dLogit = lw.doc * (prob - y.doc);
    grad[L.c] += weight * dLogit;
    for (let k = 0; k < 2 * H; k++) grad[L.v + k] += weight * dLogit * d.pool[k];

    // back into the hidden layer
    const sc = weight * inv;
    const dh = new Float64Array(H);
    for (let i = 0; i < n; i++) {
      const a = dsS[i];
      const b = dsD[i];
      const gz = dz0[i];
      grad[L.bS] += sc * a;
      grad[L.bD] += sc * b;
      grad[L.bg] += sc * gz;
      grad[L.bg + 1] -= sc * gz;
      const ho = i * H;
      for (let j = 0; j < H; j++) {
        const hv = h[ho + j];
        grad[L.wS + j] += sc * a * hv;
        grad[L.wD + j] += sc * b * hv;
        grad[L.Wg + j] += sc * gz * hv;
        grad[L.Wg + H + j] -= sc * gz * hv;
        let g = a * p[L.wS + j] + b * p[L.wD + j] + gz * (p[L.Wg + j] - p[L.Wg + H + j]);
        g = g * inv + (dLogit * p[L.v + j]) / n;
        if (d.argmax[j] === i) g += dLogit * p[L.v + H + j];
        dh[j] = g * (1 - hv * hv) * weight;
      }
      const xo = i * F;
      for (let j = 0; j < H; j++) {
        const g = dh[j];
        if (g === 0) continue;
        grad[L.b1 + j] += g;
        const wo = L.W1 + j * F;
        for (let f = 0; f < F; f++) grad[wo + f] += g * X[xo + f];
      }
    }
    return { fused: fusedRes.nll * wF, rubric: rubricLoss, doc: docLoss * lw.doc, rank: rankLoss };
  }

  /** Total loss (no gradient), for gradient checks. */
  loss(X: Float64Array, n: number, y: Labels, lw: LossWeights): number {
    const g = new Float64Array(this.L.size);
    const r = this.lossAndGrad(X, n, y, g, 1, lw);
    let total = (r.fused + r.rubric) / n + r.doc + r.rank;
    if (this.mode !== 'single') {
      const h = this.hidden(X, n);
      const { g0 } = this.heads(h, n);
      let gbar = 0;
      for (let i = 0; i < n; i++) gbar += g0[i];
      gbar /= n;
      total += lw.gate * (gbar * Math.log(gbar) + (1 - gbar) * Math.log(1 - gbar));
    }
    return total;
  }
}

/**
 * Listwise ranking loss -coef * sum_i q_i log softmax(s)_i with q uniform over the labelled lines,
 * and its gradient coef * (softmax(s) - q). Zero for files without labelled lines or coef 0.
 */
export function listwiseRank(s: Float64Array, labels: Uint8Array, coef: number): { loss: number; grad: Float64Array } {
  const n = s.length;
  const grad = new Float64Array(n);
  let pos = 0;
  for (let i = 0; i < n; i++) pos += labels[i];
  if (coef === 0 || pos === 0) return { loss: 0, grad };
  let mx = -Infinity;
  for (let i = 0; i < n; i++) if (s[i] > mx) mx = s[i];
  let z = 0;
  for (let i = 0; i < n; i++) z += Math.exp(s[i] - mx);
  const logZ = mx + Math.log(z);
  let loss = 0;
  for (let i = 0; i < n; i++) {
    const q = labels[i] / pos;
    if (q > 0) loss -= q * (s[i] - logZ);
    grad[i] = coef * (Math.exp(s[i] - logZ) - q);
  }
  return { loss: coef * loss, grad };
}

/** Adam over a flat parameter vector, with decoupled L2 on a prefix (the MLP weights). */
export class Adam {
  private m: Float64Array;
  private v: Float64Array;
  private t = 0;
  constructor(
    size: number,
    public lr = 0.003,
    readonly beta1 = 0.9,
    readonly beta2 = 0.999,
    readonly eps = 1e-8,
  ) {
    this.m = new Float64Array(size);
    this.v = new Float64Array(size);
  }

  step(p: Float64Array, g: Float64Array, decay = 0, decayEnd = 0): void {
    this.t++;
    const b1 = this.beta1;
    const b2 = this.beta2;
    const c1 = 1 - Math.pow(b1, this.t);
    const c2 = 1 - Math.pow(b2, this.t);
    for (let k = 0; k < p.length; k++) {
      const gk = g[k];
      this.m[k] = b1 * this.m[k] + (1 - b1) * gk;
      this.v[k] = b2 * this.v[k] + (1 - b2) * gk * gk;
      p[k] -= (this.lr * (this.m[k] / c1)) / (Math.sqrt(this.v[k] / c2) + this.eps);
      if (k < decayEnd) p[k] -= this.lr * decay * p[k];
    }
  }
}
