/** The read policy: which rule a read falls under, and how prune() applies it in the default mode. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideRead, FITTED_CHARS, READ_POLICY, type ReadRule } from '../../../src/core/policy/readPolicy.js';
import { createPruner } from '../../../src/core/prune.js';

const logging = readFileSync(path.resolve(__dirname, '../../../examples/logging.py'), 'utf8');
const Q = 'Where are the caplog records replaced instead of cleared?';

describe('decideRead', () => {
  const table: ReadRule[] = [
    { kind: 'file', task: false, minChars: 0, docSplit: 0, lowTauScale: null, tauScale: null },
    { kind: 'file', task: false, minChars: 1000, docSplit: 0.5, lowTauScale: 4, tauScale: 1 },
  ];
  it('takes the row of the largest band the read reaches, split by document score', () => {
    expect(decideRead({ kind: 'file', chars: 10, docScore: 0.9, hasTask: false }, table).tauScale).toBeNull();
    expect(decideRead({ kind: 'file', chars: 5000, docScore: 0.9, hasTask: false }, table).tauScale).toBe(1);
    expect(decideRead({ kind: 'file', chars: 5000, docScore: 0.1, hasTask: false }, table).tauScale).toBe(4);
    expect(decideRead({ kind: 'file', chars: 5000, docScore: 0.1, hasTask: false }, table).label).toBe('file>=1000ch doc<0.5: tau x4');
  });
  it('falls back to the calibrated τ where no row applies', () => {
    expect(decideRead({ kind: 'grep', chars: 5000, docScore: 0.9, hasTask: true }, table).tauScale).toBe(1);
  });
  it('the shipped table covers every kind, with and without a task, and keeps τ beyond the fitted sizes', () => {
    for (const kind of ['file', 'window', 'grep'] as const)
      for (const hasTask of [false, true]) {
        expect(READ_POLICY.some((r) => r.kind === kind && r.task === hasTask && r.minChars === 0)).toBe(true);
        expect(decideRead({ kind, chars: FITTED_CHARS + 5, docScore: 0.5, hasTask }).tauScale).toBe(1);
      }
  });
});

describe('the read policy in prune()', () => {
  const pruner = createPruner();
  it('names the rule it applied; an explicit threshold bypasses it', async () => {
    const r = await pruner.prune({ code: logging, query: Q });
    expect(r.policy).toMatch(/^file>=10001ch: tau x1$/);
    const t = await pruner.prune({ code: logging, query: Q, relativeThreshold: 0.5 });
    expect(t.policy).toBeUndefined();
    expect(t.text).toBe(r.text); // beyond the fitted sizes the policy is the calibrated τ
  });
  it('a window read of a few thousand characters may be left whole, and says why', async () => {
    const window = logging.split('\n').slice(329, 400).join('\n') + '\n';
    const r = await pruner.prune({ code: window, query: Q, firstLine: 330 });
    expect(r.policy).toMatch(/^window/);
    if (r.policy!.endsWith('whole')) expect(r.text).toBe(window);
  });
});
