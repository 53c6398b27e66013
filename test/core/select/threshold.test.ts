import { describe, expect, it } from 'vitest';
import { relativeScore, relativeTau, selectAboveThreshold } from '../../../src/core/select/threshold.js';
import type { Scorer } from '../../../src/core/types.js';
import { frozenScorer, pythonFunctions, stagesThroughScore } from '../../helpers/stages.js';

const code = pythonFunctions(240);
// line 6 (`    return y * 1`) and line 42 score high
const scores = Array.from({ length: 240 }, (_, i) => (i === 6 || i === 42 ? 0.9 : 0.01));

describe('selectAboveThreshold', () => {
  it("keeps the lines at or over τ and what repair needs of them; reports τ and the scorer's own", async () => {
    const s = await stagesThroughScore({ code, query: 'q', threshold: 0.5 }, frozenScorer(scores));
    const sel = selectAboveThreshold(s.job, s.input.doc, s.scored, { kind: 'given', tau: 0.5 }, null, s.repairer('threshold'));
    if (sel.kind !== 'selected') throw new Error('whole');
    expect(sel.thresholdInfo).toEqual({ threshold: 0.5, calibratedThreshold: 0.5 });
    const kept = [...sel.chosen.mask.keys()].filter((i) => sel.chosen.mask[i]);
    expect(kept).toEqual(expect.arrayContaining([4, 6, 40, 42])); // each line with its function header
    expect(kept.length).toBeLessThan(20);
    expect(sel.chosen.reasons[4]).toBe('header');
  });

  it("scales the scorer's τ by the read policy, or reads a relative threshold", async () => {
    const s = await stagesThroughScore({ code, query: 'q' }, frozenScorer(scores));
    const sel = selectAboveThreshold(s.job, s.input.doc, s.scored, { kind: 'calibrated' }, { tauScale: 0.01, label: 'x' }, s.repairer('threshold'));
    expect(sel.kind === 'selected' && sel.thresholdInfo).toEqual({ threshold: 0.005, calibratedThreshold: 0.5 });
    const rel = await stagesThroughScore({ code, query: 'q', relativeThreshold: 1 }, frozenScorer(scores));
    const relSel = selectAboveThreshold(rel.job, rel.input.doc, rel.scored, { kind: 'relative', relative: 1 }, null, rel.repairer('threshold'));
    expect(relSel.kind === 'selected' && relSel.thresholdInfo?.threshold).toBeCloseTo(1);
  });

  it('a scorer whose threshold is not a probability returns the input whole, with a diagnostic', async () => {
    const bad: Scorer = { ...frozenScorer(scores), defaultThreshold: 5 };
    const s = await stagesThroughScore({ code, query: 'q' }, bad);
    expect(selectAboveThreshold(s.job, s.input.doc, s.scored, { kind: 'calibrated' }, null, s.repairer('threshold'))).toMatchObject({
      kind: 'whole',
      why: { code: 'scorer-threshold-unusable', message: 'scorer frozen has no usable threshold (5): returned unchanged' },
    });
  });
});

describe('the relative threshold scale', () => {
  it('0.5 is the calibrated τ, 1 is certainty, and relativeScore inverts relativeTau', () => {
    expect(relativeTau(0.5, 0.01)).toBeCloseTo(0.01);
    expect(relativeTau(1, 0.01)).toBe(1);
    for (const r of [0.1, 0.5, 0.9]) expect(relativeScore(relativeTau(r, 0.01), 0.01)).toBeCloseTo(r);
  });
});

describe('search output where no line reaches τ', () => {
  // `grep -rn 'self\.' json/` on Python's json package (an excerpt): the hooks are what was asked for
  const grep = [
    'json/decoder.py:36:        self.msg = msg',
    'json/decoder.py:37:        self.doc = doc',
    'json/decoder.py:38:        self.pos = pos',
    'json/decoder.py:326:        self.object_hook = object_hook',
    'json/decoder.py:327:        self.parse_float = parse_float or float',
    'json/decoder.py:331:        self.object_pairs_hook = object_pairs_hook',
    'json/decoder.py:344:        obj, end = self.raw_decode(s, idx=_w(s, 0).end())',
    'json/encoder.py:148:        self.skipkeys = skipkeys',
    'json/encoder.py:149:        self.ensure_ascii = ensure_ascii',
    'json/encoder.py:250:            indent = self.indent',
  ];
  const low = [0.001, 0.001, 0.001, 0.009, 0.002, 0.008, 0.003, 0.001, 0.001, 0.004];

  it('keeps its best matches instead of folding them all', async () => {
    const s = await stagesThroughScore({ code: `${grep.join('\n')}\n`, query: 'Where does the decoder keep its hooks?', keepSmall: false }, frozenScorer(low));
    expect(s.input.doc.shape).toBe('grep');
    const sel = selectAboveThreshold(s.job, s.input.doc, s.scored, { kind: 'calibrated' }, null, s.repairer('threshold'));
    if (sel.kind !== 'selected') throw new Error('whole');
    const kept = [...sel.chosen.mask.keys()].filter((i) => sel.chosen.mask[i]);
    // a τ the caller gave is kept to: nothing reaches it
    const given = selectAboveThreshold(s.job, s.input.doc, s.scored, { kind: 'given', tau: 0.5 }, null, s.repairer('threshold'));
    expect(given.kind === 'selected' && given.chosen.mask.includes(1)).toBe(false);
    // the three best of the decoder's matches (line 4 between two of them costs less than a
    // marker); encoder.py's score far below the best file's and fold with their file
    expect(kept).toEqual([3, 4, 5, 6]);
  });

  it('a file where no line reaches τ still folds whole', async () => {
    const s = await stagesThroughScore({ code, query: 'q' }, frozenScorer(scores));
    const sel = selectAboveThreshold(s.job, s.input.doc, s.scored, { kind: 'given', tau: 0.95 }, null, s.repairer('threshold'));
    expect(sel.kind === 'selected' && sel.chosen.mask.includes(1)).toBe(false);
  });
});
