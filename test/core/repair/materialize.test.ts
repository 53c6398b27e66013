import { describe, expect, it } from 'vitest';
import { joinPieces } from '../../../src/core/layout/layout.js';
import { TOKENS } from '../../../src/core/layout/measure.js';
import { createMaterialize } from '../../../src/core/repair/materialize.js';
import { stagesThroughScore } from '../../helpers/stages.js';

const code = [
  'class A:',
  '    def f(self):',
  '        a = 1',
  '        b = 2',
  '        c = 3',
  '        d = 4',
  '        return a',
  '',
  'x = 5',
  'y = 6',
  'z = 7',
  '',
].join('\n');

async function setup() {
  const s = await stagesThroughScore({ code, language: 'python' });
  const seeds = new Uint8Array(s.input.doc.lines.length);
  seeds[4] = 1; // `c = 3`
  return { ...s, seeds };
}

describe('materialize', () => {
  it('repair brings back the headers a kept line needs; markers stand for the rest; cost is measured', async () => {
    const { input, analyses, seeds } = await setup();
    const m = createMaterialize(input.doc, analyses, { repair: true, economy: true, budget: true, measure: TOKENS })(seeds);
    expect(m.reasons[4]).toBe('score');
    expect(m.mask[0]).toBe(1);
    expect(m.mask[1]).toBe(1);
    expect(m.reasons[0]).toMatch(/header/);
    const text = joinPieces(m.pieces);
    expect(text).toContain('# ... ');
    expect(m.cost).toBe(TOKENS.estimate(m.pieces));
  });

  it('without repair only the seeds (and gaps no dearer than their marker) are kept', async () => {
    const { input, analyses, seeds } = await setup();
    const m = createMaterialize(input.doc, analyses, { repair: false, economy: true, budget: true, measure: TOKENS })(seeds);
    expect(m.mask[0]).toBe(0);
    expect(m.mask[4]).toBe(1);
  });

  it('banned lines stay out, and what they headed goes with them', async () => {
    const { input, analyses, seeds } = await setup();
    const banned = new Uint8Array(input.doc.lines.length);
    banned[1] = 1; // `def f(self):`
    const m = createMaterialize(input.doc, analyses, { repair: true, economy: true, budget: true, measure: TOKENS })(seeds, banned);
    expect(m.mask[1]).toBe(0);
    expect(m.mask[4]).toBe(0);
  });
});
