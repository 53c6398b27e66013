import { describe, expect, it } from 'vitest';
import { liftNeighbours } from '../../../src/core/model/lift.js';

describe('liftNeighbours', () => {
  const keep = Float64Array.from([0.01, 0.02, 0.9, 0.03, 0.01, 0.01, 0.5]);

  it('lifts lines within the window to alpha times their best neighbour, ranked just below it', () => {
    const out = liftNeighbours(keep, { window: 1, alpha: 0.8 });
    expect(out[1]).toBeCloseTo(0.72, 2);
    expect(out[3]).toBeCloseTo(0.72, 2);
    expect(out[0]).toBeLessThan(0.02); // two lines from the strong one: not lifted by it
    expect(out[2]).toBeGreaterThan(out[1]);
    expect(out[3]).toBeGreaterThan(out[1]); // ties between lifted lines fall back to their own score
    expect(out[5]).toBeCloseTo(0.4, 2);
    for (const v of out) expect(v).toBeLessThanOrEqual(1);
  });

  it('is the identity with window 0 and never lowers a score', () => {
    expect(liftNeighbours(keep, { window: 0, alpha: 0.9 })).toBe(keep);
    const out = liftNeighbours(keep, { window: 3, alpha: 1 });
    keep.forEach((v, i) => expect(out[i]).toBeGreaterThanOrEqual(v * (1 - 1e-3)));
  });
});
