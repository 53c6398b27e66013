/**
 * The one request schema: prune() checks every request with it (a typed error before any work),
 * the wire format names sessions by id, and the rules are the same wherever they are used.
 */
import { describe, expect, it } from 'vitest';
import { SkimError } from '../../src/core/errors.js';
import { createPruner } from '../../src/core/prune.js';
import { checkPruneRequest, FIELD_RULES, parseWith, wireRequestSchema } from '../../src/core/request.js';
import { SessionMemory } from '../../src/core/session/memory.js';
import type { PruneRequest } from '../../src/core/types.js';

const usage = (fn: () => unknown): SkimError => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SkimError);
    expect((err as SkimError).code).toBe('EUSAGE');
    return err as SkimError;
  }
  throw new Error('did not throw');
};

describe("checkPruneRequest (prune()'s check)", () => {
  it('accepts a valid request, a session memory included', () => {
    checkPruneRequest({ code: 'x', query: 'q', ratio: 2, language: 'py', pinLines: [1], session: new SessionMemory() });
    checkPruneRequest({ code: '' });
  });

  it.each<[string, unknown, RegExp]>([
    ['not an object', null, /must be an object/],
    ['no code', {}, /code/],
    ['ratio below 1', { code: 'x', ratio: 0.5 }, /ratio/],
    ['a fractional token budget', { code: 'x', tokens: 1.5 }, /tokens/],
    ['threshold above 1', { code: 'x', threshold: 2 }, /threshold/],
    ['NaN threshold', { code: 'x', threshold: Number.NaN }, /threshold/],
    ['two budgets', { code: 'x', ratio: 2, maxChars: 10 }, /either .*maxChars/],
    ['line 0 pinned', { code: 'x', pinLines: [0] }, /pinLines/],
    ['firstLine 0', { code: 'x', firstLine: 0 }, /firstLine/],
    ['an unknown language', { code: 'x', language: 'cobol' }, /unknown language "cobol"; supported: /],
    ['a session that is not a memory', { code: 'x', session: 'abc' }, /session/],
    ['a query that is not a string', { code: 'x', query: 5 }, /query/],
  ])('refuses %s with a SkimError EUSAGE', (_name, req, message) => {
    expect(usage(() => checkPruneRequest(req as PruneRequest)).message).toMatch(message);
  });

  it('is what prune() throws, before any work', async () => {
    const pruner = createPruner({ scorer: 'heuristic' });
    await expect(pruner.prune({ code: 'x', language: 'cobol' })).rejects.toThrow(SkimError);
    await expect(pruner.prune({ code: 'x', tokens: -1 })).rejects.toMatchObject({ code: 'EUSAGE' });
  });
});

describe('wireRequestSchema (HTTP bodies, batch lines)', () => {
  it('names the session by id and strips unknown fields', () => {
    expect(parseWith(wireRequestSchema, { code: 'x', session: 's1', extra: 1 })).toEqual({ code: 'x', session: 's1' });
    expect(usage(() => parseWith(wireRequestSchema, { code: 'x', session: '' })).message).toMatch(/^invalid request: session: /);
  });

  it("has the library's rules", () => {
    for (const bad of [
      { code: 'x', ratio: 0.5 },
      { code: 'x', ratio: 2, tokens: 3 },
      { code: 'x', language: 'cobol' },
    ]) {
      usage(() => parseWith(wireRequestSchema, bad));
      usage(() => checkPruneRequest(bad as PruneRequest));
    }
  });
});

describe('FIELD_RULES', () => {
  it('are the rules of the request fields', () => {
    expect(FIELD_RULES.ratio.safeParse(1).success).toBe(true);
    expect(FIELD_RULES.ratio.safeParse(0.99).success).toBe(false);
    expect(FIELD_RULES.ratio.safeParse(Number.POSITIVE_INFINITY).success).toBe(false);
    expect(FIELD_RULES.unit.safeParse(1).success).toBe(true);
    expect(FIELD_RULES.unit.safeParse(1.01).success).toBe(false);
    expect(FIELD_RULES.count.safeParse(0).success).toBe(true);
    expect(FIELD_RULES.count.safeParse(-1).success).toBe(false);
    expect(FIELD_RULES.lineNumber.safeParse(0).success).toBe(false);
    expect(FIELD_RULES.language.safeParse('golang').success).toBe(true);
  });
});
