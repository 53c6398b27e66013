/**
 * Budget mode keeps the answer first: under a tight budget, the lines that answer the question
 * come before the lines that only support reading them. Checked across a labelled set rather than
 * on hand-picked lines: 60 teacher-labelled queries (goal hints and issue reports) over ten files
 * of five repositories that training holds back (test/fixtures/teacher/README.md), pruned by the
 * shipped model at 4x, 8x and 300 tokens.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { expandRanges, type TeacherLabel } from '../../scripts/teacher/build-cases.js';
import { prune } from '../../src/core/prune.js';
import type { PruneRequest } from '../../src/core/types.js';

/** A teacher label with the file it is about. */
type LabelledCase = TeacherLabel & { content: string };

const cases: LabelledCase[] = gunzipSync(readFileSync(new URL('../fixtures/teacher/held-back.jsonl.gz', import.meta.url)))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as LabelledCase);

/** 0-based lines of 1-based inclusive ranges (the fixture's ranges are checked: they lie in the file). */
const expand = (ranges: [number, number][]) => expandRanges(ranges, Infinity)!.map((line) => line - 1);

async function recallAt(budget: Pick<PruneRequest, 'ratio' | 'tokens'>) {
  let answer = 0;
  let answerKept = 0;
  let support = 0;
  let supportKept = 0;
  for (const c of cases) {
    const r = await prune({ code: c.content, query: c.query, language: c.lang, path: c.path, ...budget });
    const answerLines = new Set(expand(c.keep));
    for (const i of answerLines) {
      answer++;
      answerKept += r.keepMask[i]!;
    }
    for (const i of expand(c.support)) {
      if (answerLines.has(i)) continue;
      support++;
      supportKept += r.keepMask[i]!;
    }
  }
  return { answer: answerKept / answer, support: supportKept / support };
}

describe('budget mode keeps the answer before its support', () => {
  it('holds a real labelled set', () => {
    expect(cases.length).toBe(60);
    expect(new Set(cases.map((c) => c.repo)).size).toBe(5);
  });

  // Floors sit a little below the shipped model's figures (0.764 / 0.495 / 0.722, printed on
  // failure): a retrain that loses answer lines fails here. The ordering is the rule.
  for (const [name, budget, floor] of [
    ['4x', { ratio: 4 }, 0.72],
    ['8x', { ratio: 8 }, 0.45],
    ['300 tokens', { tokens: 300 }, 0.68],
  ] as const) {
    it(`at ${name}: answer lines are kept more often than support lines, and at least a set share of them`, async () => {
      const r = await recallAt(budget);
      expect(r.answer, JSON.stringify(r)).toBeGreaterThan(r.support);
      expect(r.answer, JSON.stringify(r)).toBeGreaterThanOrEqual(floor);
    }, 120_000);
  }
});
