/** The read policy: the gate's probability, its ladder, and how prune() applies it in the default mode. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideRead, FITTED_CHARS, READ_POLICY, type ReadFacts, type ReadGate, readProbability } from '../../../src/core/policy/readPolicy.js';
import { createPruner } from '../../../src/core/prune.js';
import { SessionMemory } from '../../../src/core/session/memory.js';

const logging = readFileSync(path.resolve(__dirname, '../../../examples/logging.py'), 'utf8');
const Q = 'Where are the caplog records replaced instead of cleared?';
const facts = (f: Partial<ReadFacts> = {}): ReadFacts => ({ kind: 'file', chars: 4000, hasTask: false, priorReads: 0, readIndex: 0, ...f });

describe('decideRead', () => {
  // P = σ(-2 + 2·log1p(priorReads)): 0.12 on a first read, 0.31 on a second, 0.55 on a third
  const gate: ReadGate = {
    task: false,
    bias: -2,
    weights: [0, 0, 0, 2, 0],
    ladder: [
      { below: 0.2, tauScale: 8 },
      { below: 0.5, tauScale: 1 },
    ],
  };
  it('maps the gate probability through the ladder: low bands prune hard, above the last the read stays whole', () => {
    expect(readProbability(gate, facts())).toBeCloseTo(1 / (1 + Math.exp(2)), 10);
    expect(decideRead(facts(), [gate]).tauScale).toBe(8);
    expect(decideRead(facts({ priorReads: 1 }), [gate]).tauScale).toBe(1);
    expect(decideRead(facts({ priorReads: 2 }), [gate])).toEqual({ tauScale: null, label: 'gate p=0.55: whole' });
  });
  it('keeps the calibrated τ beyond the fitted sizes, and where no gate fits the task setting', () => {
    expect(decideRead(facts({ chars: FITTED_CHARS + 1 }), [gate]).tauScale).toBe(1);
    expect(decideRead(facts({ hasTask: true }), [gate]).tauScale).toBe(1);
  });
  it('the shipped policy has a gate with and without a task; a first read is treated with care', () => {
    for (const hasTask of [false, true]) {
      expect(READ_POLICY.filter((g) => g.task === hasTask)).toHaveLength(1);
      // a run's first read of a mid-size file, or one read again, is left whole or at τ
      const first = decideRead(facts({ hasTask })).tauScale;
      expect(first === null || first <= 1).toBe(true);
      // late reads of new files in a long run are pruned harder than that
      const late = decideRead(facts({ hasTask, readIndex: 40 })).tauScale;
      expect(late).not.toBeNull();
      expect(late!).toBeGreaterThanOrEqual(first ?? 0);
    }
  });
});

describe('the read policy in prune()', () => {
  const pruner = createPruner();
  it('names the rule it applied; an explicit threshold bypasses it', async () => {
    const r = await pruner.prune({ code: logging, query: Q });
    expect(r.policy).toBe(`over ${FITTED_CHARS} characters: tau x1`);
    const t = await pruner.prune({ code: logging, query: Q, relativeThreshold: 0.5 });
    expect(t.policy).toBeUndefined();
    expect(t.text).toBe(r.text); // beyond the fitted sizes the policy is the calibrated τ
  });
  it('weighs the session: the same window read late in a session is pruned harder than as a first read', async () => {
    const window = logging.split('\n').slice(299, 420).join('\n') + '\n';
    const first = await pruner.prune({ code: window, query: Q, firstLine: 300, path: 'logging.py' });
    const session = new SessionMemory();
    for (let k = 0; k < 30; k++) session.noteRead(`other${k}.py`);
    expect(session.readCount).toBe(30);
    const late = await pruner.prune({ code: window, query: Q, firstLine: 300, path: 'logging.py', session });
    expect(first.policy).toMatch(/^gate p=/);
    expect(late.tokensOut).toBeLessThan(first.tokensOut);
    expect(session.readCount).toBe(31);
    expect(session.readsOf('./logging.py')).toBe(1);
  });
});
