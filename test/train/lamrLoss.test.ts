import { describe, expect, it } from 'vitest';
import { LamrModel } from '../../src/core/model/lamr.js';
import { DEFAULT_LOSS, initParams, listwiseRank, lossAndGrad, mulberry32, totalLoss } from '../../src/train/lamrLoss.js';
import { sample } from '../helpers/lamrSample.js';

describe('lossAndGrad', () => {
  for (const mode of ['lamr', 'single'] as const) {
    it(`${mode}: analytic gradient matches finite differences`, () => {
      const F = 5;
      const H = 4;
      const n = 6;
      const m = new LamrModel(F, H, mode);
      initParams(m, 3);
      // make every parameter non-trivial, including CRF potentials and the doc head
      const r = mulberry32(11);
      for (let k = 0; k < m.p.length; k++) m.p[k] += (r() - 0.5) * 0.5;
      const { X, y } = sample(n, F, 5);
      const lw = { ...DEFAULT_LOSS, gate: 0.3, doc: 0.5, rank: 0.7 };
      const grad = new Float64Array(m.L.size);
      lossAndGrad(m, X, n, y, grad, 1, lw);
      let gbarTerm = 0;
      const eps = 1e-6;
      for (let k = 0; k < m.p.length; k++) {
        if (mode === 'single' && k >= m.L.wD && k < m.L.crfF) continue; // unused in single mode
        const old = m.p[k];
        m.p[k] = old + eps;
        const up = totalLoss(m, X, n, y, lw);
        m.p[k] = old - eps;
        const down = totalLoss(m, X, n, y, lw);
        m.p[k] = old;
        const num = (up - down) / (2 * eps);
        expect(Math.abs(grad[k] - num)).toBeLessThan(1e-6 + 1e-4 * Math.abs(num));
        gbarTerm += Math.abs(num);
      }
      expect(gbarTerm).toBeGreaterThan(0);
    });
  }
});

describe('listwiseRank', () => {
  it('is the cross-entropy between softmax over lines and the uniform label distribution, with its gradient', () => {
    const s = Float64Array.from([0.5, -1, 2, 0.1]);
    const y = Uint8Array.from([1, 0, 1, 0]);
    const z = s.reduce((a, v) => a + Math.exp(v), 0);
    const expected = -0.5 * (Math.log(Math.exp(0.5) / z) + Math.log(Math.exp(2) / z));
    const { loss, grad } = listwiseRank(s, y, 2);
    expect(loss).toBeCloseTo(2 * expected, 12);
    for (let i = 0; i < 4; i++) {
      const up = Float64Array.from(s);
      const down = Float64Array.from(s);
      up[i] += 1e-6;
      down[i] -= 1e-6;
      expect(grad[i]).toBeCloseTo((listwiseRank(up, y, 2).loss - listwiseRank(down, y, 2).loss) / 2e-6, 6);
    }
  });

  it('is zero for a file without labelled lines or a zero weight', () => {
    const s = Float64Array.from([1, 2, 3]);
    expect(listwiseRank(s, new Uint8Array(3), 1).loss).toBe(0);
    expect([...listwiseRank(s, Uint8Array.from([1, 0, 0]), 0).grad]).toEqual([0, 0, 0]);
  });
});
