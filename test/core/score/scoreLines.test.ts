import { describe, expect, it } from 'vitest';
import { finiteScores } from '../../../src/core/score/scoreLines.js';
import type { Scorer } from '../../../src/core/types.js';
import { frozenScorer, pythonFunctions, stagesThroughScore } from '../../helpers/stages.js';

const code = pythonFunctions(240);

describe('scoreLines', () => {
  it("puts each segment line's score at its input line; layout lines score 0", async () => {
    const multi = `==> a.py <==\n${pythonFunctions(8)}\n==> b.py <==\n${pythonFunctions(8)}`;
    const scorer: Scorer = { name: 'ramp', score: (input) => ({ keep: Float64Array.from(input.lines.map((_, i) => (i + 1) / 10)), docScore: 0.5 }) };
    const { input, scored } = await stagesThroughScore({ code: multi, query: 'f1', keepSmall: false }, scorer);
    input.doc.lines.forEach((l, i) => {
      if (l.segment === -1) expect(scored.probs[i]).toBe(0);
      else expect(scored.probs[i]).toBeCloseTo((input.doc.segments[l.segment].lines.indexOf(i) + 1) / 10);
    });
    expect(scored.docScore).toBeCloseTo(0.5);
  });

  it("keeps the better of the query's and the task's score per line", async () => {
    const scorer: Scorer = {
      name: 'q',
      score: (input) => ({
        keep: Float64Array.from(input.lines.map((_, i) => (input.query === 'task' ? (i === 5 ? 0.9 : 0) : i === 1 ? 0.8 : 0.1))),
        docScore: input.query === 'task' ? 0.7 : 0.2,
      }),
    };
    const { scored } = await stagesThroughScore({ code, query: 'query', task: 'task' }, scorer);
    expect([scored.probs[1], scored.probs[5], scored.probs[9]]).toEqual([0.8, 0.9, 0.1]);
    expect(scored.docScore).toBeCloseTo(0.7);
  });

  it('the heuristic stands in for a scorer that throws, with a diagnostic per failure', async () => {
    const { job, scored } = await stagesThroughScore(
      { code, query: 'f3' },
      {
        name: 'broken',
        score: () => {
          throw new Error('boom');
        },
      },
    );
    expect(job.diagnostics).toEqual([{ code: 'scorer-failed', message: 'scorer broken failed (boom); heuristic used' }]);
    expect(scored.probs.some((p) => p > 0)).toBe(true);
    expect(scored.nonFinite).toBe(false);
  });

  it('non-finite scores are flagged once; the message says what the mode does about them', async () => {
    const nan: Scorer = { name: 'nan', score: (input) => ({ keep: new Float64Array(input.lines.length).fill(NaN), docScore: 0 }) };
    const threshold = await stagesThroughScore({ code, query: 'f3', task: 'f4' }, nan);
    expect(threshold.scored.nonFinite).toBe(true);
    expect(threshold.job.diagnostics.map((d) => d.message)).toEqual(['scorer nan produced non-finite scores (NaN or infinite): returned unchanged']);
    const budget = await stagesThroughScore({ code, ratio: 2 }, nan);
    expect(budget.job.diagnostics.map((d) => d.message)).toEqual(['scorer nan produced non-finite scores (NaN or infinite); heuristic used']);
    expect(budget.scored.probs.every(Number.isFinite)).toBe(true);
  });

  it('does not call the scorer when there is nothing to prune', async () => {
    let calls = 0;
    const counting: Scorer = {
      name: 'c',
      score: (input) => {
        calls++;
        return frozenScorer([]).score(input);
      },
    };
    const { scored } = await stagesThroughScore({ code }, counting);
    expect(calls).toBe(0);
    expect(scored.docScore).toBe(0);
  });

  it('finiteScores', () => {
    expect(finiteScores({ keep: Float64Array.from([0, 1]), docScore: 0.5 })).toBe(true);
    expect(finiteScores({ keep: Float64Array.from([0, Infinity]), docScore: 0.5 })).toBe(false);
    expect(finiteScores({ keep: new Float64Array(1), docScore: NaN })).toBe(false);
  });
});
