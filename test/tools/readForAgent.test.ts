import { describe, expect, it } from 'vitest';
import { SkimError } from '../../src/core/errors.js';
import { SMALL_INPUT_LINES } from '../../src/core/limits.js';
import { createPruner } from '../../src/core/prune.js';
import { SessionMemory } from '../../src/core/session/memory.js';
import type { PruneRequest } from '../../src/core/types.js';
import { asksToPrune, prunesRead, readForAgent, readWarnings } from '../../src/tools/readForAgent.js';
import { pythonFunctions } from '../helpers/stages.js';

const heuristic = createPruner({ scorer: 'heuristic' });
const big = pythonFunctions(SMALL_INPUT_LINES * 2);
const small = 'def f(x):\n    return x\n';

/** The heuristic pruner, counting its calls. */
function counting() {
  const calls: PruneRequest[] = [];
  const prune = (req: PruneRequest) => {
    calls.push(req);
    return heuristic.prune(req);
  };
  return { calls, prune };
}

describe('prunesRead: the one rule of whether a read is pruned', () => {
  it('a question (not blank) or a budget asks for pruning', () => {
    expect(asksToPrune({ query: 'where is y computed?' })).toBe(true);
    expect(asksToPrune({ query: '   ' })).toBe(false);
    expect(asksToPrune({ tokens: 0 })).toBe(true);
    expect(asksToPrune({ ratio: 2 })).toBe(true);
    expect(asksToPrune({ maxChars: 10 })).toBe(true);
    expect(asksToPrune({})).toBe(false);
  });

  it('prunes with a budget or a session, or with a question on output that is not small', () => {
    expect(prunesRead({ query: 'q' }, big)).toBe(true);
    expect(prunesRead({ query: 'q' }, small)).toBe(false);
    expect(prunesRead({ query: 'q', keepSmall: false }, small)).toBe(true);
    expect(prunesRead({}, big)).toBe(false);
    expect(prunesRead({ maxChars: 100 }, small)).toBe(true);
    expect(prunesRead({ session: new SessionMemory() }, small)).toBe(true);
    expect(prunesRead({}, small, true)).toBe(true);
  });
});

describe('readForAgent', () => {
  it('returns the read as it is, without calling prune, when nothing asks for pruning', async () => {
    const c = counting();
    expect(await readForAgent(c.prune, { code: big, query: ' ' }, { onFailure: () => {} })).toEqual({ text: big, result: null });
    expect(await readForAgent(c.prune, { code: small, query: 'q' }, { onFailure: () => {} })).toEqual({ text: small, result: null });
    expect(c.calls).toHaveLength(0);
  });

  it("prunes when asked: the text is prune()'s", async () => {
    const c = counting();
    const read = await readForAgent(c.prune, { code: big, query: 'what does f7 return?', ratio: 4 }, { onFailure: () => {} });
    expect(c.calls).toHaveLength(1);
    expect(read.result).not.toBeNull();
    expect(read.text).toBe(read.result?.text);
    expect(read.text.length).toBeLessThan(big.length);
  });

  it('fails open: an internal failure gives the read back whole and says why', async () => {
    const said: string[] = [];
    const failing = async (): Promise<never> => {
      throw new Error('boom');
    };
    const read = await readForAgent(failing, { code: big, query: 'q', ratio: 2 }, { onFailure: (m) => said.push(m) });
    expect(read).toEqual({ text: big, result: null });
    expect(said).toEqual(['prune failed, returning the output unpruned: boom']);
  });

  it("throws the caller's misuse on", async () => {
    const misuse = async (): Promise<never> => {
      throw new SkimError('invalid request: ratio: too small', 'EUSAGE');
    };
    await expect(readForAgent(misuse, { code: big, ratio: 0.5 }, { onFailure: () => {} })).rejects.toThrow(/ratio/);
  });
});

describe('readWarnings', () => {
  it('says every diagnostic of a read but "no query"', async () => {
    const r = await heuristic.prune({ code: big, query: '', session: new SessionMemory() });
    expect(r.diagnostics.map((d) => d.code)).toContain('no-query');
    expect(readWarnings(r.diagnostics)).toEqual(r.warnings.filter((w) => !/no query/.test(w)));
    expect(
      readWarnings([
        { code: 'weak-match', message: 'weak' },
        { code: 'no-query', message: 'nq' },
      ]),
    ).toEqual(['weak']);
  });
});
