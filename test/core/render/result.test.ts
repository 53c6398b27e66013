import { describe, expect, it } from 'vitest';
import { diagnostic } from '../../../src/core/diagnostics.js';
import { CHARS, TOKENS } from '../../../src/core/layout/measure.js';
import type { SelectionPlan } from '../../../src/core/pipeline/types.js';
import { renderResult } from '../../../src/core/render/result.js';
import { createMaterialize } from '../../../src/core/repair/materialize.js';
import { selectAboveThreshold } from '../../../src/core/select/threshold.js';
import { frozenScorer, pythonFunctions, stagesThroughScore } from '../../helpers/stages.js';

const code = pythonFunctions(240);
const threshold: SelectionPlan = { kind: 'plan', strategy: 'threshold', decision: { tauScale: 1, label: 'gate p=0.10: tau x1' } };

async function thresholdCase(scores: number[]) {
  const s = await stagesThroughScore({ code, query: 'q', threshold: 0.5 }, frozenScorer(scores, 0.123456));
  const sel = selectAboveThreshold(s.job, s.input.doc, s.scored, { kind: 'given', tau: 0.5 }, null, s.repairer('threshold'));
  if (sel.kind !== 'selected') throw new Error('whole');
  return { ...s, sel };
}

describe('renderResult', () => {
  it('joins and counts the output; ranges, score, threshold and policy go on the result', async () => {
    const { job, input, scored, sel } = await thresholdCase(Array.from({ length: 240 }, (_, i) => (i === 46 ? 0.9 : 0)));
    const r = renderResult(job, input, scored, threshold, sel);
    // (threshold mode's repair also brings the first definition of the `y` the function uses);
    // each marker sits at the depth of the definitions it hides and names them
    expect(
      r.text.endsWith(
        '# ... 38 lines omitted (7-44): rest of f1; f2, f3, f4, f5 and 5 more\ndef f11(x):\n    y = x + 11\n    return y * 11\n# ... 193 lines omitted (48-240): f12, f13, f14, f15 and 44 more\n',
      ),
    ).toBe(true);
    expect(r.kept).toEqual([
      [1, 6],
      [45, 47],
    ]);
    expect(r.omitted).toEqual([
      [7, 44],
      [48, 240],
    ]);
    expect(r).toMatchObject({ score: 0.1235, scorer: 'frozen', threshold: 0.5, calibratedThreshold: 0.5, policy: 'gate p=0.10: tau x1', shape: 'raw' });
    expect(r.tokensOut).toBeLessThan(r.tokensIn);
    expect(r.warnings).toEqual([]);
  });

  it('nothing over the threshold: everything omitted, and a diagnostic says it was judged unrelated', async () => {
    const { job, input, scored, sel } = await thresholdCase(new Array(240).fill(0));
    const r = renderResult(job, input, scored, threshold, sel);
    expect(r.kept).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['nothing-relevant']);
    expect(r.warnings[0]).toMatch(/^no line reached the threshold \(0\.5\): everything was omitted as unrelated/);
  });

  it('threshold mode: an output that saves no tokens returns the input whole, with the scores when asked', async () => {
    const s = await stagesThroughScore({ code, query: 'q', threshold: 0.5, explain: true }, frozenScorer([]));
    const all = createMaterialize(s.input.doc, s.analyses, { repair: false, economy: false, budget: false, measure: TOKENS })(new Uint8Array(240).fill(1));
    const r = renderResult(s.job, s.input, s.scored, threshold, { kind: 'selected', chosen: all, thresholdInfo: { threshold: 0.5, calibratedThreshold: 0.5 } });
    expect(r.text).toBe(code);
    expect(r.omitted).toEqual([]);
    expect(r).toMatchObject({ scorer: 'frozen', threshold: 0.5, policy: 'gate p=0.10: tau x1' });
    expect(r.explain).toHaveLength(240);
  });

  it('budget mode: a selection with no line gets the budget diagnostic, unless selection gave one', async () => {
    const s = await stagesThroughScore({ code, tokens: 20 }, frozenScorer([]));
    const none = createMaterialize(s.input.doc, s.analyses, { repair: false, economy: true, budget: true, measure: TOKENS })(new Uint8Array(240));
    const plan: SelectionPlan = { kind: 'plan', strategy: 'budget', decision: null };
    const r = renderResult(s.job, s.input, s.scored, plan, { kind: 'selected', chosen: none });
    expect(r.warnings).toEqual(['budget of 20 tokens too small to keep any line with the context it needs: every line omitted']);
    const again = await stagesThroughScore({ code, tokens: 20 }, frozenScorer([]));
    again.job.diagnostics.push(diagnostic('budget-too-small', 'budget too small for any line: whole input collapsed to one marker'));
    expect(renderResult(again.job, again.input, again.scored, plan, { kind: 'selected', chosen: none }).diagnostics).toHaveLength(1);
  });

  it('budget mode in characters: the diagnostic names characters, not tokens', async () => {
    const s = await stagesThroughScore({ code, maxChars: 100 }, frozenScorer([]));
    const none = createMaterialize(s.input.doc, s.analyses, { repair: false, economy: true, budget: true, measure: CHARS })(new Uint8Array(240));
    const plan: SelectionPlan = { kind: 'plan', strategy: 'budget', decision: null };
    const r = renderResult(s.job, s.input, s.scored, plan, { kind: 'selected', chosen: none });
    expect(r.warnings).toEqual(['budget of 100 characters too small to keep any line with the context it needs: every line omitted']);
  });
});
