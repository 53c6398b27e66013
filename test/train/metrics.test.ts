import { describe, expect, it } from 'vitest';
import { addPrf, prf, recallOf, selectTopK } from '../../src/train/metrics.js';

describe('metrics', () => {
  it('selectTopK takes the best lines that fit and never exceeds the budget', () => {
    const keep = selectTopK([0.9, 0.1, 0.8, 0.5], [10, 1, 6, 3], 14);
    expect(Array.from(keep)).toEqual([1, 1, 0, 1]);
    expect(recallOf(keep, [0, 2])).toEqual({ hit: 1, total: 2 });
  });
  it('prf counts', () => {
    const acc = { tp: 0, fp: 0, fn: 0 };
    addPrf(acc, [0.9, 0.2, 0.7, 0.1], [1, 1, 0, 0], 0.5);
    expect(prf(acc)).toEqual({ p: 0.5, r: 0.5, f1: 0.5 });
  });
});
