import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../../src/core/layout/measure.js';
import { explainLines } from '../../../src/core/render/explain.js';
import { createMaterialize } from '../../../src/core/repair/materialize.js';
import { frozenScorer, stagesThroughScore } from '../../helpers/stages.js';

const body = Array.from({ length: 20 }, (_, i) => `    v${i} = ${i} * 1234567`);
const code = ['def f(x):', ...body, '    return x', ''].join('\n');

describe('explainLines', () => {
  it('says per line its score, whether it is kept and why', async () => {
    const keep = [0, 0.00123456, ...new Array(20).fill(0)];
    const s = await stagesThroughScore({ code, query: 'q', explain: true, language: 'python', keepSmall: false }, frozenScorer(keep));
    const seeds = new Uint8Array(22);
    seeds[1] = 1;
    const chosen = createMaterialize(s.input.doc, s.analyses, { repair: true, economy: true, budget: true, measure: TOKENS })(seeds);
    const lines = explainLines(s.input.doc, s.scored, chosen, chosen.mask);
    expect(lines[1]).toEqual({ line: 2, score: 0.00123, kept: true, reason: 'score' });
    expect(lines[0]).toMatchObject({ line: 1, kept: true, reason: 'repair:header' });
    expect(lines[10]).toEqual({ line: 11, score: 0, kept: false });
  });

  it("a line shown only because the input came back whole is kept for reason 'whole'", async () => {
    const s = await stagesThroughScore({ code, query: 'q', explain: true }, frozenScorer([]));
    const chosen = createMaterialize(s.input.doc, s.analyses, { repair: false, economy: true, budget: true, measure: TOKENS })(new Uint8Array(22));
    expect(explainLines(s.input.doc, s.scored, chosen, new Uint8Array(22).fill(1))[3]).toMatchObject({ kept: true, reason: 'whole' });
  });
});
