import { describe, expect, it } from 'vitest';
import { ingest } from '../../../src/core/ingest/ingest.js';
import type { ReadGate } from '../../../src/core/policy/readPolicy.js';
import { collapseWeakFiles, PINNED, pinLines, planSelection, selectionScores } from '../../../src/core/select/plan.js';
import { frozenScorer, pythonFunctions, stagesThroughScore } from '../../helpers/stages.js';

const code = pythonFunctions(240);
const scores = Array.from({ length: 240 }, (_, i) => (i === 10 ? 0.9 : 0.1));

describe('planSelection', () => {
  it('threshold mode asks the read policy; an explicit threshold bypasses it', async () => {
    const byDefault = await stagesThroughScore({ code, query: 'f2' }, frozenScorer(scores));
    byDefault.job.readPolicy = [{ task: false, bias: 0, weights: [0, 0, 0, 0, 0], ladder: [{ below: 2, tauScale: 0.5 }] }];
    const plan = planSelection(byDefault.job, byDefault.input, byDefault.scored);
    expect(plan).toMatchObject({ kind: 'plan', strategy: 'threshold' });
    expect(plan.kind === 'plan' && plan.decision).toEqual({ tauScale: 0.5, label: 'gate p=0.50: tau x0.5' });
    const explicit = await stagesThroughScore({ code, query: 'f2', threshold: 0.5 }, frozenScorer(scores));
    expect(planSelection(explicit.job, explicit.input, explicit.scored)).toEqual({ kind: 'plan', strategy: 'threshold', decision: null });
  });

  it('a read the policy would not prune comes back whole, naming the policy', async () => {
    const never: ReadGate[] = [{ task: false, bias: 100, weights: [0, 0, 0, 0, 0], ladder: [] }];
    const s = await stagesThroughScore({ code, query: 'f2' }, frozenScorer(scores));
    s.job.readPolicy = never;
    const plan = planSelection(s.job, s.input, s.scored);
    expect(plan).toMatchObject({ kind: 'whole', extra: { scorer: 'frozen', policy: 'gate p=1.00: whole' } });
  });

  it('budget and keep-all plans; non-finite scores in threshold mode return the input whole', async () => {
    const budget = await stagesThroughScore({ code, ratio: 3 }, frozenScorer(scores));
    expect(planSelection(budget.job, budget.input, budget.scored)).toEqual({ kind: 'plan', strategy: 'budget', decision: null });
    const none = await stagesThroughScore({ code, tokens: 1e6 }, frozenScorer(scores));
    expect(planSelection(none.job, none.input, none.scored)).toMatchObject({ strategy: 'keep-all' });
    const nan = await stagesThroughScore(
      { code, query: 'q' },
      { name: 'nan', score: (i) => ({ keep: new Float64Array(i.lines.length).fill(NaN), docScore: 0 }) },
    );
    expect(planSelection(nan.job, nan.input, nan.scored)).toEqual({ kind: 'whole', score: 1 });
  });
});

describe('collapseWeakFiles and pinLines', () => {
  it('zeroes the files whose best line is under a quarter of the best file, and pins lines above any score', () => {
    const doc = ingest('==> a <==\nx\ny\n==> b <==\nz\n==> c <==\nw\n', { detectLanguage: () => 'text' });
    const probs = Float64Array.from([0, 0.8, 0.4, 0, 0.1, 0, 0.3]);
    collapseWeakFiles(doc, probs);
    expect([...probs]).toEqual([0, 0.8, 0.4, 0, 0, 0, 0.3]);
    pinLines(doc, probs, [1, 5, 99]); // a header line, a file line, past the end
    expect([...probs]).toEqual([0, 0.8, 0.4, 0, PINNED, 0, 0.3]);
  });
});

describe('selectionScores', () => {
  it('pins lines in a copy: the scores planSelection and the scorer see stay as scored', async () => {
    const s = await stagesThroughScore({ code, query: 'f2', pinLines: [3] }, frozenScorer(scores));
    const before = [...s.scored.probs];
    planSelection(s.job, s.input, s.scored);
    expect([...s.scored.probs]).toEqual(before);
    const ranked = selectionScores(s.input.doc, s.scored, [3]);
    expect(ranked.probs[2]).toBe(PINNED);
    expect([...s.scored.probs]).toEqual(before);
    expect({ ...ranked, probs: null }).toEqual({ ...s.scored, probs: null });
  });
});
