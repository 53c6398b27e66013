import { describe, expect, it } from 'vitest';
import { openedPriorities, priorityOrder } from '../../../src/core/select/select.js';

const open = (p: number[], width: number, blank: number[] = [], segments: number[][] = [p.map((_, i) => i)]) => [
  ...openedPriorities(Float64Array.from(p), segments, (i) => blank.includes(i), width),
];

describe('openedPriorities', () => {
  it('width 2: a line ranks no higher than its better neighbour, so a lone peak drops and a pair ranks together', () => {
    expect(open([0.1, 0.9, 0.2, 0.1, 0.8, 0.7, 0.1], 2)).toEqual([0.1, 0.2, 0.2, 0.1, 0.7, 0.7, 0.1]);
  });

  it('width 3: a two-line peak drops to the best three-line run around it', () => {
    expect(open([0.1, 0.9, 0.8, 0.3, 0.1], 3)).toEqual([0.1, 0.3, 0.3, 0.3, 0.1]);
  });

  it('skips blank lines: neighbours are the nearest non-blank lines, and blanks keep their score', () => {
    // line 2 is blank: lines 1 and 3 are neighbours, a pair; without the blank rule both would drop to 0.05
    expect(open([0.1, 0.9, 0.05, 0.8, 0.1], 2, [2])).toEqual([0.1, 0.8, 0.05, 0.8, 0.1]);
  });

  it('works per segment: a segment edge is not a neighbour, and pinned scores (> 1) stay', () => {
    expect(open([0.9, 0.1, 2, 0.1], 2, [], [[0], [1, 2, 3]])).toEqual([0.9, 0.1, 2, 0.1]);
    expect(
      open(
        [0.9, 0.1, 0.1, 0.8],
        2,
        [],
        [
          [0, 1],
          [2, 3],
        ],
      ),
    ).toEqual([0.1, 0.1, 0.1, 0.1]);
  });

  it('never raises a score, and width < 2 changes nothing', () => {
    const p = [0.3, 0.1, 0.6, 0.6, 0.2, 0.9];
    open(p, 3).forEach((v, i) => expect(v).toBeLessThanOrEqual(p[i]));
    expect(open(p, 1)).toEqual(p);
  });

  it('puts a relevant block ahead of a lone line that scores higher', () => {
    const p = [0.05, 0.95, 0.05, 0.05, 0.7, 0.6, 0.65, 0.05];
    const order = priorityOrder(Float64Array.from(open(p, 2)));
    expect(order.slice(0, 3).sort()).toEqual([4, 5, 6]);
  });
});
