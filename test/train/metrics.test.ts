import { describe, expect, it } from 'vitest';
import { addPrf, prf, recallOf, selectTopK } from '../../src/train/metrics.js';
import type { Example } from '../../src/train/prepare.js';
import { calibrateThreshold } from '../../src/train/trainer.js';

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

describe('calibrateThreshold', () => {
  // two teacher gold files: labelled lines score high in their file, others low; one distractor
  const file = (role: 'gold' | 'distractor', keep: number[], agg: number[]) =>
    [{ file: { source: 'teacher', role, agg, lines: keep.map(() => 'x = 1') }, n: keep.length } as unknown as Example, { keep: Float64Array.from(keep), doc: role === 'gold' ? 0.9 : 0.2 }] as const;
  const scores = new Map([
    file('gold', [0.5, 0.4, 0.02, 0.01, 0.01, 0.03], [0, 1]),
    file('gold', [0.05, 0.04, 0.01, 0.001, 0.002, 0.001], [0, 1]),
    file('distractor', [0.03, 0.02, 0.01, 0.01, 0.01, 0.01], []),
  ]);

  it('keeps the target recall and, with a relative floor, drops what is far below each file\'s best', () => {
    const plain = calibrateThreshold(scores, 1, ['teacher'], [0]);
    expect(plain.recall).toBe(1);
    expect(plain.relativeFloor).toBe(0);
    const withFloor = calibrateThreshold(scores, 1, ['teacher'], [0, 0.5]);
    expect(withFloor.recall).toBe(1);
    expect(withFloor.goldKeptShare + withFloor.distractorKeptShare).toBeLessThanOrEqual(plain.goldKeptShare + plain.distractorKeptShare);
    expect(withFloor.candidates.some((c) => c.relativeFloor === 0.5)).toBe(true);
  });

  it('skips a floor that alone loses more than the target allows', () => {
    const cal = calibrateThreshold(scores, 1, ['teacher'], [0, 0.95]);
    expect(cal.candidates.every((c) => c.relativeFloor === 0)).toBe(true);
  });
});
