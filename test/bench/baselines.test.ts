import { describe, expect, it } from 'vitest';
import { budgetTokens, fitGroups } from '../../src/bench/budget.js';
import { bm25Method, fullMethod, headMethod, randomMethod, rankWindows, windowStarts } from '../../src/bench/methods/baselines.js';
import type { PreparedFile } from '../../src/bench/methods/types.js';
import { renderMask } from '../../src/bench/render.js';
import { ingest } from '../../src/core/ingest/ingest.js';
import { countTokens } from '../../src/core/tokens/count.js';

function prepared(code: string, query = '', language = 'python'): PreparedFile {
  const doc = ingest(code, { path: 'x.py', language, detectLanguage: () => language });
  return {
    file: { path: 'x.py', role: 'gold', code, labels: [], hunks: [] },
    query,
    language,
    doc,
    tokensIn: countTokens(code),
    key: 'k',
  };
}

const CODE = Array.from({ length: 200 }, (_, i) => `value_${i} = compute_thing(${i}) + other_stuff_${i}`).join('\n') + '\n';

describe('budget fitting', () => {
  it('never exceeds the token budget, markers included', () => {
    const f = prepared(CODE);
    for (const ratio of [2, 4, 8, 16]) {
      const groups = f.doc.lines.map((_, i) => [i]);
      const out = fitGroups(f.doc, groups, budgetTokens(f.tokensIn, ratio));
      expect(out.tokensOut).toBe(countTokens(out.text));
      expect(out.tokensOut).toBeLessThanOrEqual(budgetTokens(f.tokensIn, ratio));
      // And uses most of it: a greedy fill should not stop far below.
      expect(out.tokensOut).toBeGreaterThan(budgetTokens(f.tokensIn, ratio) * 0.8);
    }
  });

  it('renders omitted runs with skim markers and keeps kept lines verbatim', () => {
    const f = prepared('a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n');
    const keep = Uint8Array.from([1, 0, 0, 0, 1]);
    const r = renderMask(f.doc, keep);
    expect(r.text).toBe('a = 1\n# ... 3 lines omitted (2-4)\ne = 5\n');
    // A lone gap between kept lines is shown, not marked.
    const r2 = renderMask(f.doc, Uint8Array.from([1, 0, 1, 0, 0]));
    expect(r2.text).toBe('a = 1\nb = 2\nc = 3\n# ... 2 lines omitted (4-5)\n');
    expect([...r2.shown]).toEqual([1, 1, 1, 0, 0]);
  });
});

describe('baselines', () => {
  it('full returns the input', async () => {
    const f = prepared(CODE);
    const out = await fullMethod.run(f, { label: 'natural' });
    expect(out.text).toBe(CODE);
    expect(out.tokensOut).toBe(f.tokensIn);
  });

  it('head keeps a prefix of the file', async () => {
    const f = prepared(CODE);
    const out = await headMethod.run(f, { label: '4x', ratio: 4 });
    const k = out.keepMask.indexOf(0);
    expect(k).toBeGreaterThan(10);
    expect([...out.keepMask.slice(k)].every((v) => v === 0)).toBe(true);
    await expect(headMethod.run(f, { label: 'adaptive' })).rejects.toThrow(/no adaptive/);
  });

  it('random is deterministic for a file and within budget', async () => {
    const f = prepared(CODE);
    const a = await randomMethod.run(f, { label: '4x', ratio: 4 });
    const b = await randomMethod.run(f, { label: '4x', ratio: 4 });
    expect(a.text).toBe(b.text);
    expect(a.tokensOut).toBeLessThanOrEqual(budgetTokens(f.tokensIn, 4));
    // Not a prefix: some late line is kept.
    expect(a.keepMask.slice(150).some((v) => v === 1)).toBe(true);
  });

  it('bm25 windows are 40 lines with 10 of overlap and cover the file', () => {
    expect(windowStarts(30)).toEqual([0]);
    expect(windowStarts(100)).toEqual([0, 30, 60]);
    expect(windowStarts(101)).toEqual([0, 30, 60, 61]);
  });

  it('bm25 ranks the window holding the query terms first and keeps it', async () => {
    const lines = CODE.split('\n');
    lines[150] = 'def reticulate_splines(spline_count):';
    const f = prepared(lines.join('\n'), 'why does reticulate splines fail');
    const ranked = rankWindows(f);
    expect(ranked[0].lines).toContain(150);
    expect(ranked[0].score).toBeGreaterThan(0);
    const out = await bm25Method.run(f, { label: '4x', ratio: 4 });
    expect(out.keepMask[150]).toBe(1);
    // At 8x no 40-line window fits whole: the best one is cut to the budget, not dropped.
    const out8 = await bm25Method.run(f, { label: '8x', ratio: 8 });
    expect(out8.tokensOut).toBeLessThanOrEqual(budgetTokens(f.tokensIn, 8));
    expect(out8.keepMask.filter((v) => v === 1).length).toBeGreaterThan(5);
    expect([...out8.keepMask].indexOf(1)).toBe(ranked[0].lines[0]);
    const adaptive = await bm25Method.run(f, { label: 'adaptive' });
    expect(adaptive.keepMask[150]).toBe(1);
    expect(adaptive.tokensOut).toBeLessThan(f.tokensIn / 2);
  });

  it('adaptive bm25 keeps nothing when no query term occurs', async () => {
    const f = prepared(CODE, 'zebra giraffe');
    const out = await bm25Method.run(f, { label: 'adaptive' });
    expect(out.keepMask.every((v) => v === 0)).toBe(true);
    expect(out.text).toBe('# ... 200 lines omitted (1-200)\n');
  });
});

describe('outline', () => {
  const SRC = [
    'import os',
    '',
    'class Store:',
    '    """Keeps things."""',
    '',
    '    @property',
    '    def size(self):',
    '        total = 0',
    '        for x in self.items:',
    '            total += x',
    '        return total',
    '',
    'def helper(a,',
    '           b):',
    '    c = a + b',
    '    d = c * 2',
    '    return d',
    '',
  ].join('\n');

  it('keeps definition headers and decorators only, whatever the query', async () => {
    const { outlineMethod } = await import('../../src/bench/methods/outline.js');
    const f = prepared(SRC, 'anything');
    const out = await outlineMethod.run(f, { label: 'adaptive' });
    const kept = [...out.keepMask].map((v, i) => (v ? i + 1 : 0)).filter(Boolean);
    // class header, decorator + def, the two-line signature of helper.
    expect(kept).toEqual([3, 6, 7, 13, 14]);
    expect(out.text).toContain('# ... 5 lines omitted (8-12)');
    const g = prepared(SRC, 'something else entirely');
    expect((await outlineMethod.run(g, { label: 'adaptive' })).text).toBe(out.text);
  });
});
