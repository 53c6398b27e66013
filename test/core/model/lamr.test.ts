import { describe, expect, it } from 'vitest';
import { LamrModel } from '../../../src/core/model/lamr.js';
import { initParams } from '../../../src/train/lamrLoss.js';
import { sample } from '../../helpers/lamrSample.js';

describe('LamrModel', () => {
  it('inference returns probabilities, a path and a gate split', () => {
    const m = new LamrModel(5, 4, 'lamr');
    initParams(m, 1);
    const { X } = sample(9, 5, 2);
    const out = m.infer(X, 9, true);
    expect(out.keep.length).toBe(9);
    for (const v of out.keep) expect(v).toBeGreaterThanOrEqual(0);
    for (const v of out.gateSemantic) expect(v > 0 && v < 1).toBe(true);
    expect(out.viterbi.length).toBe(9);
    expect(out.docScore > 0 && out.docScore < 1).toBe(true);
  });

  for (const H of [6, 19]) {
    it(`the hidden layer (constant columns folded into the bias, blocks of 8 units, sparse lines) equals a dense evaluation, H = ${H}`, () => {
      const F = 7;
      const n = 11;
      const m = new LamrModel(F, H, 'lamr');
      initParams(m, 4);
      const { X } = sample(n, F, 9);
      for (let i = 0; i < n; i++) {
        X[i * F + 2] = 0.37; // a file-level feature: one value on every line
        X[i * F + 5] = 0; // a feature absent from this file
        if (i % 3 === 0) X[i * F + ((i + 1) % F)] = 0; // lines differ in which features are zero
      }
      const h = m.hidden(X, n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < H; j++) {
          let a = m.p[m.L.b1 + j];
          for (let f = 0; f < F; f++) a += m.p[m.L.W1 + j * F + f] * X[i * F + f];
          expect(Math.abs(h[i * H + j] - Math.tanh(a))).toBeLessThan(1e-12);
        }
      }
    });
  }

  it("inference without the Viterbi path (the first stage's is never used) leaves the rest unchanged", () => {
    const F = 7;
    const n = 11;
    const m = new LamrModel(F, 6, 'lamr');
    initParams(m, 4);
    const { X } = sample(n, F, 9);
    const lean = m.infer(X, n, false, false);
    const full = m.infer(X, n);
    expect(lean.viterbi.length).toBe(0);
    expect(Array.from(lean.keep)).toEqual(Array.from(full.keep));
    expect(lean.docScore).toBe(full.docScore);
  });
});
