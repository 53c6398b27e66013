/**
 * model-eval's table rows: top-k recall of labelled lines, threshold mode through the real
 * pipeline, and the document head's AUC of gold files against distractors, on a hand-made set whose
 * figures are known.
 */
import { describe, expect, it } from 'vitest';
import type { Scorer } from '../../src/core/types.js';
import type { LabeledFile } from '../../src/train/datasets.js';
import { evaluateSets, formatTable } from '../../src/train/evaluate.js';

const file = (path: string, role: 'gold' | 'distractor', agg: number[]): LabeledFile => ({
  id: path,
  source: 'swebench',
  repo: 'x/y',
  path,
  lang: 'python',
  query: 'parse the retry delay',
  queryKind: 'issue',
  lines: Array.from({ length: 60 }, (_, i) => `value_${i} = compute_delay(attempt=${i}, base=backoff_base, cap=backoff_cap)`),
  agg,
  role,
  split: 'val',
});
const files = [file('a.py', 'gold', [0, 1]), file('b.py', 'gold', [40]), file('c.py', 'distractor', []), file('d.py', 'distractor', [])];
// lines 0 and 1 score highest; documents: a.py 0.9, b.py 0.3, c.py 0.5, d.py 0.1 -> AUC (2 + 1) / 4
const doc: Record<string, number> = { 'a.py': 0.9, 'b.py': 0.3, 'c.py': 0.5, 'd.py': 0.1 };
const stub: Scorer = {
  name: 'stub',
  defaultThreshold: 0.5,
  score: (input) => ({ keep: Float64Array.from(input.lines, (_, i) => (i < 2 ? 0.9 : 0.01)), docScore: doc[input.path!] }),
};

describe('evaluateSets', () => {
  it('reports top-k recall, threshold-mode recall and the document AUC', async () => {
    const [row] = await evaluateSets([{ name: 'swebench-dev', files }], [{ name: 'stub', scorer: stub }], { prune: true });
    expect(row.goldFiles).toBe(2);
    expect(row.labelled).toBe(3);
    // a 4x character budget holds 15 of the 60 equal lines: the two best and the first 13 of the
    // rest (ties go to the earlier line): a.py's both, not b.py's line 41
    expect(row.topk4).toBeCloseTo(2 / 3, 12);
    expect(row.topk8).toBeCloseTo(2 / 3, 12);
    // threshold mode (τ 0.5) keeps lines 1-2 of every file
    expect(row.thrRecall).toBeCloseTo(2 / 3, 12);
    expect(row.thrDistractorCompression).toBeGreaterThan(5);
    expect(row.docAuc).toBeCloseTo(0.75, 12);
    expect(formatTable([row])).toMatch(/\| 0\.750 \|$/m);
  });

  it('has no AUC where there are no distractors', async () => {
    const [row] = await evaluateSets([{ name: 'commits-val', files: files.slice(0, 2) }], [{ name: 'stub', scorer: stub }]);
    expect(row.docAuc).toBeUndefined();
  });
});
