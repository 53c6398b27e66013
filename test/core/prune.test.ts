/** prune() behaviours beyond the invariants: small inputs, empty queries, pins, multi-file collapse, misuse. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkimError } from '../../src/core/errors.js';
import { createPruner, prune, relativeScore, relativeTau } from '../../src/core/prune.js';
import { checkInvariants } from '../helpers/invariants.js';

const pruner = createPruner({ scorer: 'heuristic' });
const logging = readFileSync(path.resolve(__dirname, '../../examples/logging.py'), 'utf8');
const Q = 'Where are the caplog records replaced instead of cleared?';

describe('prune', () => {
  it('returns a small input whole unless a budget forces pruning', async () => {
    const code = 'import os\n\ndef f():\n    return os.sep\n';
    const r = await pruner.prune({ code, query: 'separator' });
    expect(r.text).toBe(code);
    expect(r.omitted).toEqual([]);
    const forced = await pruner.prune({ code: logging.split('\n').slice(0, 30).join('\n'), query: Q, tokens: 40 });
    expect(forced.tokensOut).toBeLessThanOrEqual(40);
    expect(forced.omitted.length).toBeGreaterThan(0);
  });

  it('maxChars prunes to at most that many characters, markers included', async () => {
    for (const maxChars of [10_000, 3_000, 400]) {
      const r = await pruner.prune({ code: logging, query: Q, maxChars });
      expect(checkInvariants(logging, r)).toBeNull();
      expect(r.text.length).toBeLessThanOrEqual(maxChars);
      expect(r.omitted.length).toBeGreaterThan(0);
    }
    const whole = await pruner.prune({ code: logging, query: Q, maxChars: logging.length });
    expect(whole.text).toBe(logging);
    await expect(pruner.prune({ code: 'x', maxChars: 10, ratio: 2 })).rejects.toThrow(/maxChars/);
  });

  it('without a query nothing is pruned (and says so)', async () => {
    const r = await pruner.prune({ code: logging });
    expect(r.text).toBe(logging);
    expect(r.warnings.join()).toMatch(/no query/);
  });

  it('pinned lines are kept even when irrelevant, and budgets still hold', async () => {
    const r = await pruner.prune({ code: logging, query: Q, ratio: 8, pinLines: [1, 2, 3, 700] });
    expect(checkInvariants(logging, r)).toBeNull();
    for (const l of [1, 2, 3, 700]) expect(r.keepMask[l - 1]).toBe(1);
    expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / 8));
  });

  it('a pinned line inside a docstring is kept under a budget, with the whole docstring (no marker inside it)', async () => {
    // lines 80-91: the docstring of add_color_level; 85 and 87 lie inside it
    const r = await pruner.prune({ code: logging, query: Q, ratio: 8, pinLines: [85, 87] });
    expect(checkInvariants(logging, r)).toBeNull();
    for (let l = 80; l <= 91; l++) expect(r.keepMask[l - 1]).toBe(1);
    expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / 8));
  });

  it('a pinned line a budget cannot afford is omitted with a warning that names it', async () => {
    // lines 80-91 are add_color_level's docstring: the whole docstring does not fit 60 tokens
    const r = await pruner.prune({ code: logging, query: Q, tokens: 60, pinLines: [85, 87, 5000] });
    expect(r.keepMask[84]).toBe(0);
    expect(r.diagnostics.filter((d) => d.code === 'pin-dropped').map((d) => d.message)).toEqual([
      'pinned lines 85, 87 omitted: the budget cannot keep them with the context they need',
    ]);
    const kept = await pruner.prune({ code: logging, query: Q, ratio: 8, pinLines: [85, 87] });
    expect(kept.diagnostics.map((d) => d.code)).not.toContain('pin-dropped');
  });

  it('under a budget, a blank line left between a one-line body kept whole and the next line is kept, not marked', async () => {
    // `nl` output (blank lines unnumbered): a marker for a blank line alone could only name its input position
    const session = readFileSync(path.resolve(__dirname, '../../examples/playground-http_session.py'), 'utf8');
    let no = 0;
    const code = session
      .split('\n')
      .map((l) => (l === '' ? '       ' : `${String(++no).padStart(6)}\t${l}`))
      .join('\n');
    const lines = code.split('\n');
    const r = await prune({ code, query: 'where are records cleared?', path: 'examples/playground-http_session.py', ratio: 3 });
    expect(r.omitted.length).toBeGreaterThan(0);
    expect(r.omitted.filter(([a, b]) => lines.slice(a - 1, b).every((l) => l.trim() === ''))).toEqual([]);
    expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / 3));
  });

  it('explain gives every line a score and every kept line a reason', async () => {
    const r = await pruner.prune({ code: logging, query: Q, ratio: 4, explain: true });
    expect(r.explain).toHaveLength(r.keepMask.length);
    const reasons = new Set(r.explain!.filter((e) => e.kept).map((e) => e.reason));
    expect(reasons.has('score')).toBe(true);
    expect([...reasons].some((x) => x?.startsWith('repair:'))).toBe(true);
  });

  it('without repair, no placeholders or repair-kept lines appear', async () => {
    const r = await pruner.prune({ code: logging, query: Q, ratio: 4, explain: true, repair: false });
    expect(checkInvariants(logging, r)).toBeNull();
    expect(r.explain!.some((e) => e.reason?.startsWith('repair:'))).toBe(false);
  });

  it('grep output over files collapses a file far below the others to one marker with its match count', async () => {
    const lines = logging.split('\n');
    const grep: string[] = [];
    lines.forEach((l, i) => {
      if (/records/.test(l)) grep.push(`src/_pytest/logging.py:${i + 1}:${l}`);
    });
    for (let i = 0; i < 30; i++) grep.push(`docs/unrelated_${Math.floor(i / 10)}.txt:${i + 1}:banana smoothie recipe number ${i}`);
    const code = grep.join('\n') + '\n';
    const r = await pruner.prune({ code, query: Q });
    expect(checkInvariants(code, r)).toBeNull();
    expect(r.text).toMatch(/\.\.\. 10 lines omitted, 10 matches \(docs\/unrelated_0\.txt:\d+-\d+\)/);
    expect(r.text).toContain('src/_pytest/logging.py:');
  });

  it('is deterministic', async () => {
    const a = await pruner.prune({ code: logging, query: Q, ratio: 4 });
    const b = await createPruner({ scorer: 'heuristic' }).prune({ code: logging, query: Q, ratio: 4 });
    expect(a.text).toBe(b.text);
  });

  it('throws SkimError on misuse', async () => {
    await expect(pruner.prune({ code: 1 as unknown as string })).rejects.toBeInstanceOf(SkimError);
    await expect(pruner.prune({ code: 'x', ratio: 0.5 })).rejects.toThrow(/ratio/);
    await expect(pruner.prune({ code: 'x', ratio: 2, tokens: 3 })).rejects.toThrow(/either/);
    await expect(pruner.prune({ code: 'x', threshold: 2 })).rejects.toThrow(/threshold/);
  });
});

describe('relativeThreshold (SWE-Pruner-style thresholds)', () => {
  it('0.5 is the calibrated threshold, higher keeps less, lower keeps more', async () => {
    expect(relativeTau(0.5, 0.01)).toBeCloseTo(0.01);
    expect(relativeTau(1, 0.01)).toBe(1);
    expect(relativeTau(0, 0.01)).toBeCloseTo(1e-4);
    // the default (learned) scorer: its calibrated threshold is the 0.5 point
    const kept = async (r?: number) => (await prune({ code: logging, query: Q, relativeThreshold: r })).tokensOut;
    const [lo, mid, def, hi] = [await kept(0.2), await kept(0.5), await kept(undefined), await kept(0.8)];
    expect(mid).toBe(def);
    expect(lo).toBeGreaterThan(mid);
    expect(hi).toBeLessThan(mid);
    expect(hi).toBeGreaterThan(0);
  });

  it('relativeScore is its inverse: a score passes relativeThreshold r exactly when relativeScore(score) >= r', () => {
    expect(relativeScore(0.01, 0.01)).toBeCloseTo(0.5, 12);
    expect(relativeScore(1, 0.01)).toBe(1);
    expect(relativeScore(1e-4, 0.01)).toBeCloseTo(0, 12);
    expect(relativeScore(1e-9, 0.01)).toBe(0);
    expect(relativeScore(0, 0.01)).toBe(0);
    for (const r of [0.1, 0.3, 0.62, 0.9]) {
      const tau = relativeTau(r, 0.00254);
      expect(relativeScore(tau, 0.00254)).toBeCloseTo(r, 12);
      expect(relativeScore(tau * 1.01, 0.00254)).toBeGreaterThan(r);
      expect(relativeScore(tau * 0.99, 0.00254)).toBeLessThan(r);
    }
    // a scorer calibrated at 1 (nothing passes but certainty) still gives a valid scale
    expect(relativeScore(0.99, 1)).toBe(0);
    expect(relativeScore(1, 1)).toBe(1);
  });
});

describe('a whole input judged unrelated', () => {
  it('is omitted with a warning naming the threshold and the document score; budget mode still keeps lines', async () => {
    const learned = createPruner();
    const q = 'How are CUDA kernels launched on the GPU device?';
    const r = await learned.prune({ code: logging, query: q });
    expect(checkInvariants(logging, r)).toBeNull();
    expect(r.kept).toEqual([]);
    expect(r.warnings).toContainEqual(
      `no line reached the threshold (${r.threshold}): everything was omitted as unrelated to the question (document score ${r.score})`,
    );
    const related = await learned.prune({ code: logging, query: Q });
    expect(related.kept.length).toBeGreaterThan(0);
    expect(related.warnings.filter((w) => w.startsWith('no line reached'))).toEqual([]);
    const budget = await learned.prune({ code: logging, query: q, ratio: 8 });
    expect(budget.kept.length).toBeGreaterThan(0);
    expect(budget.warnings.filter((w) => w.startsWith('no line reached'))).toEqual([]);
  });
});

describe('the threshold a result reports', () => {
  it("is the calibrated τ by default, the caller's when given, and absent in budget mode", async () => {
    const learned = createPruner();
    const scorer = await learned.scorer();
    const byDefault = await learned.prune({ code: logging, query: Q });
    expect(scorer.defaultThreshold).toBeDefined();
    expect(byDefault.threshold).toBe(scorer.defaultThreshold);
    const relative = await learned.prune({ code: logging, query: Q, relativeThreshold: 0.8 });
    expect(relative.threshold).toBeCloseTo(relativeTau(0.8, scorer.defaultThreshold!), 12);
    expect((await learned.prune({ code: logging, query: Q, threshold: 0.01 })).threshold).toBe(0.01);
    expect((await learned.prune({ code: logging, query: Q, ratio: 4 })).threshold).toBeUndefined();
    expect(relative.calibratedThreshold).toBe(scorer.defaultThreshold);
  });

  it('goes out with the scores even when the input comes back whole because pruning would save nothing', async () => {
    const learned = createPruner();
    // a τ so low that every line passes: the pruned text would be the input itself
    const r = await learned.prune({ code: logging, query: Q, threshold: 1e-12, explain: true });
    expect(r.text).toBe(logging);
    expect(r.threshold).toBe(1e-12);
    expect(r.scorer).toBe('learned');
    expect(r.explain).toHaveLength(r.keepMask.length);
    expect(r.explain!.every((e) => e.kept && (e.reason === 'score' || e.reason === 'whole' || e.reason === 'layout'))).toBe(true);
    expect(new Set(r.explain!.map((e) => e.score)).size).toBeGreaterThan(10);
  });

  it('explain scores keep three significant digits, so lines near a small τ stay comparable to it', async () => {
    const learned = createPruner();
    const r = await learned.prune({ code: logging, query: Q, explain: true });
    const tau = r.threshold!;
    expect(tau).toBeLessThan(0.01);
    // Every line kept for its score reaches τ; every unkept line is below it (no repair reasons).
    for (const e of r.explain!) {
      if (e.kept && e.reason === 'score') expect(e.score).toBeGreaterThanOrEqual(Number(tau.toPrecision(3)));
      if (!e.kept) expect(e.score).toBeLessThan(tau * 1.001);
      expect(Number(e.score.toPrecision(3))).toBe(e.score);
    }
    // Scores below 0.001 are not flattened to zero.
    expect(r.explain!.some((e) => e.score > 0 && e.score < 0.001)).toBe(true);
  });
});
