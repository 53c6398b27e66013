/**
 * Training objective of the LaMR skimmer (core/model/lamr.ts): the fused CRF loss, the rubric CRF
 * losses, gate balance, document relevance and a listwise ranking term, with the exact gradient
 * over the flat parameter vector; random initialization.
 */
import { unaryFromEmissions } from '../core/model/crf.js';
import type { LossWeights } from '../core/model/header.js';
import type { LamrModel } from '../core/model/lamr.js';
import { nllAndGrad } from './crfLoss.js';

export type { LossWeights };

/** The shipped recipe (models/MODEL_CARD.md): LaMR's loss with lambda 0.25 (its 0.6 measured worse here) and the listwise term. */
export const DEFAULT_LOSS: LossWeights = { lambda: 0.25, rubric: [1.0, 0.7], doc: 0.1, gate: 0.002, l2: 1e-5, rank: 0.3 };

export interface Labels {
  /** Aggregate keep labels (0/1 per line). */
  agg: Uint8Array;
  sem: Uint8Array;
  dep: Uint8Array;
  /** 1 when the file is relevant to the query (gold file), 0 for a distractor. */
  doc: number;
}

/** Deterministic PRNG (mulberry32): initialization and shuffling here, the random baseline of skim bench. */
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

/** Random initial parameters (Gaussian, scaled by fan-in; emissions start low: keep lines are rare). */
export function initParams(model: LamrModel, seed: number): void {
  const r = mulberry32(seed);
  const gauss = (): number => {
    const u = Math.max(1e-12, r());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
  };
  const { L, p } = model;
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
 * Loss of one sample and its gradient, accumulated into `grad` (scaled by `weight`).
 * Returns the loss parts for monitoring.
 */
export function lossAndGrad(
  model: LamrModel,
  X: Float64Array | Float32Array,
  n: number,
  y: Labels,
  grad: Float64Array,
  weight: number,
  lw: LossWeights,
): { fused: number; rubric: number; doc: number; rank: number } {
  if (n === 0) return { fused: 0, rubric: 0, doc: 0, rank: 0 };
  const { F, H } = model.L;
  const L = model.L;
  const p = model.p;
  const h = model.hidden(X, n);
  const { sS, sD, g0, sF } = model.heads(h, n);
  const single = model.mode === 'single';
  const inv = 1 / n;
  const wF = single ? 1 : 1 - lw.lambda;

  const fusedRes = nllAndGrad(unaryFromEmissions(sF), model.crf('F'), y.agg);
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
    const rs = nllAndGrad(unaryFromEmissions(sS), model.crf('S'), y.sem);
    const rd = nllAndGrad(unaryFromEmissions(sD), model.crf('D'), y.dep);
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
  const d = model.docLogit(h, n);
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

/** Total loss of one sample (no gradient), for gradient checks. */
export function totalLoss(model: LamrModel, X: Float64Array, n: number, y: Labels, lw: LossWeights): number {
  const g = new Float64Array(model.L.size);
  const r = lossAndGrad(model, X, n, y, g, 1, lw);
  let total = (r.fused + r.rubric) / n + r.doc + r.rank;
  if (model.mode !== 'single') {
    const h = model.hidden(X, n);
    const { g0 } = model.heads(h, n);
    let gbar = 0;
    for (let i = 0; i < n; i++) gbar += g0[i];
    gbar /= n;
    total += lw.gate * (gbar * Math.log(gbar) + (1 - gbar) * Math.log(1 - gbar));
  }
  return total;
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
