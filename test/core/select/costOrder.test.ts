import { describe, expect, it } from 'vitest';
import { costAwareOrder } from '../../../src/core/select/costOrder.js';
import { ensureGrammar } from '../../../src/core/syntax/index.js';
import { frozenScorer, stagesThroughScore } from '../../helpers/stages.js';

// Two classes (A with two methods, B with one), 14 lines; indexes are 0-based.
const code = `class A:
    def a1(self):
        x = 1
        return x

    def a2(self):
        y = 2
        return y


class B:
    def b1(self):
        z = 3
        return z
`;

async function orderFor(scores: number[], gamma: number) {
  await ensureGrammar('python');
  const s = await stagesThroughScore({ code, ratio: 2, language: 'python' }, frozenScorer(scores));
  const doc = s.input.doc;
  const value = Float64Array.from(scores);
  // in value order, as budget mode hands them over
  const eligible = doc.lines.map((_, i) => i).sort((a, b) => value[b] - value[a] || a - b);
  return costAwareOrder(doc, s.analyses, eligible, value, undefined, { gamma, markerCost: 10, lineCost: () => 5, orderUpTo: Number.POSITIVE_INFINITY });
}

describe('costAwareOrder', () => {
  it('puts the best line first whatever it costs', async () => {
    // line 13 (in B.b1: two headers and a marker) is the best; `class A:` needs only its marker
    const scores = [0.45, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.55];
    const order = await orderFor(scores, 0.5);
    expect(order[0]).toBe(13);
  });

  it('with gamma 0 is the order of value alone', async () => {
    const scores = [0.1, 0.2, 0.9, 0.3, 0, 0.4, 0.8, 0.5, 0, 0, 0.05, 0.06, 0.7, 0.07];
    const order = await orderFor(scores, 0);
    expect(order.slice(0, 5)).toEqual([2, 6, 12, 7, 5]);
  });

  it('puts a line whose scopes are open, next to a kept line, ahead of an equal one that needs headers and a marker', async () => {
    // line 2 (in A.a1) first; then 3 (same method, joins the kept run) beats 13 (B.b1: two headers and a marker)
    const scores = [0, 0, 0.9, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5];
    const order = await orderFor(scores, 0.5);
    expect(order[0]).toBe(2);
    expect(order.indexOf(3)).toBeLessThan(order.indexOf(13));
    // by value alone the tie goes to position: 3 then 13 as well, so check a case value alone would flip
    const flipped = [0, 0, 0.9, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.55];
    expect((await orderFor(flipped, 0)).indexOf(13)).toBeLessThan((await orderFor(flipped, 0)).indexOf(3));
    expect((await orderFor(flipped, 0.5)).indexOf(3)).toBeLessThan((await orderFor(flipped, 0.5)).indexOf(13));
  });

  it('orders every eligible line once', async () => {
    const scores = Array.from({ length: 14 }, (_, i) => ((i * 7) % 11) / 11);
    const order = await orderFor(scores, 0.5);
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, i) => i));
  });
});
