import { describe, expect, it } from 'vitest';
import { type CrfParams, marginals, viterbi } from '../../../src/core/model/crf.js';
import { nllAndGrad, pathScore } from '../../../src/train/crfLoss.js';

/** Deterministic pseudo-random numbers for reproducible cases. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function randomCase(n: number, seed: number): { u: Float64Array; p: CrfParams; y: Uint8Array } {
  const r = rng(seed);
  const g = () => (r() - 0.5) * 4;
  const u = Float64Array.from({ length: n * 2 }, g);
  const p = { trans: Float64Array.from({ length: 4 }, g), start: Float64Array.from({ length: 2 }, g), end: Float64Array.from({ length: 2 }, g) };
  const y = Uint8Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0));
  return { u, p, y };
}

function allPaths(n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let m = 0; m < 1 << n; m++) out.push(Uint8Array.from({ length: n }, (_, i) => (m >> i) & 1));
  return out;
}

describe('crf', () => {
  it('marginals and NLL match brute-force enumeration', () => {
    for (let n = 1; n <= 6; n++) {
      const { u, p, y } = randomCase(n, 17 + n);
      const paths = allPaths(n);
      const scores = paths.map((q) => pathScore(u, p, q));
      const max = Math.max(...scores);
      const z = scores.reduce((a, s) => a + Math.exp(s - max), 0);
      const logZ = max + Math.log(z);
      const m = marginals(u, p);
      for (let i = 0; i < n; i++) {
        let pi = 0;
        paths.forEach((q, k) => {
          if (q[i] === 1) pi += Math.exp(scores[k] - logZ);
        });
        expect(m[i]).toBeCloseTo(pi, 10);
      }
      expect(nllAndGrad(u, p, y).nll).toBeCloseTo(logZ - pathScore(u, p, y), 10);
      // Viterbi = arg max of enumeration
      const best = paths[scores.indexOf(max)];
      expect(Array.from(viterbi(u, p))).toEqual(Array.from(best));
    }
  });

  it('gradient matches finite differences', () => {
    const n = 7;
    const { u, p, y } = randomCase(n, 99);
    const { grad } = nllAndGrad(u, p, y);
    const eps = 1e-6;
    const check = (arr: Float64Array, g: Float64Array) => {
      for (let k = 0; k < arr.length; k++) {
        const old = arr[k];
        arr[k] = old + eps;
        const up = nllAndGrad(u, p, y).nll;
        arr[k] = old - eps;
        const down = nllAndGrad(u, p, y).nll;
        arr[k] = old;
        expect(g[k]).toBeCloseTo((up - down) / (2 * eps), 6);
      }
    };
    check(u, grad.unary);
    check(p.trans, grad.trans);
    check(p.start, grad.start);
    check(p.end, grad.end);
  });

  it('stays finite with extreme potentials', () => {
    const u = Float64Array.from([800, -800, -900, 900, 1000, 0]);
    const p = { trans: Float64Array.from([500, -500, 0, 700]), start: new Float64Array(2), end: new Float64Array(2) };
    const m = marginals(u, p);
    for (const v of m) expect(Number.isFinite(v)).toBe(true);
    expect(Number.isFinite(nllAndGrad(u, p, [0, 1, 1]).nll)).toBe(true);
  });
});
