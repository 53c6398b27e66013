/**
 * The method registry: `skim@<τ>` (threshold mode at a fixed τ) on real bench cases, and the
 * errors for names it does not know.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveMethods } from '../../src/bench/methods/index.js';
import type { FileRecord } from '../../src/bench/metrics.js';
import { budgetsFor, runBench } from '../../src/bench/runner.js';

const FIX = new URL('../fixtures/bench/', import.meta.url).pathname;

describe('resolveMethods', () => {
  it('resolves skim@<τ> to an adaptive-only skim method at that threshold', async () => {
    const [m] = resolveMethods('skim@0.002');
    expect(m.name).toBe('skim@0.002');
    expect(m.kind).toBe('adaptive-only');
    // Runs once in adaptive mode whatever budgets were asked for.
    expect(budgetsFor(m, [{ label: '4x', ratio: 4 }])).toEqual([{ label: 'adaptive' }]);
    expect(await m.describe?.()).toMatch(/threshold 0\.002/);
  });

  it('rejects thresholds outside (0, 1] and unknown names with a message naming them', () => {
    for (const bad of ['skim@', 'skim@0', 'skim@1.5', 'skim@abc', 'skim@-0.1']) {
      expect(() => resolveMethods(bad), bad).toThrow(/skim@<threshold> needs a threshold in \(0, 1\]/);
    }
    expect(() => resolveMethods('skim,bogus')).toThrow(/unknown method "bogus"/);
  });
});

describe('skim@<τ> on real cases', () => {
  it('keeps more of every suite as τ falls, and the calibrated default sits between', async () => {
    const perMethod = new Map<string, FileRecord[]>();
    await runBench({
      cases: ['real-swebench', 'real-goalhint'].map((s) => join(FIX, `${s}.jsonl`)),
      methods: resolveMethods('skim@0.05,skim,skim@0.00001'),
      budgets: [{ label: 'adaptive' }],
      limit: 2,
      onRecord: (r) => {
        const list = perMethod.get(r.method) ?? [];
        list.push(r);
        perMethod.set(r.method, list);
      },
    });
    const tokensOut = (m: string) => (perMethod.get(m) ?? []).reduce((s, r) => s + r.tokensOut, 0);
    const kept = (m: string) => (perMethod.get(m) ?? []).reduce((s, r) => s + r.labelsKept, 0);
    const strict = tokensOut('skim@0.05');
    const calibrated = tokensOut('skim');
    const loose = tokensOut('skim@0.00001');
    expect(strict).toBeGreaterThan(0);
    expect(strict).toBeLessThan(calibrated);
    expect(calibrated).toBeLessThan(loose);
    expect(kept('skim@0.05')).toBeLessThanOrEqual(kept('skim'));
    expect(kept('skim')).toBeLessThanOrEqual(kept('skim@0.00001'));
  }, 60_000);
});
