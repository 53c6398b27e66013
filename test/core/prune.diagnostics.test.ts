/**
 * Every result carries its problems twice: as `diagnostics` ({code, message}: callers branch on
 * the code) and as `warnings` (the messages, in the same order, for people).
 */
import { describe, expect, it } from 'vitest';
import { createPruner } from '../../src/core/prune.js';
import type { PruneRequest } from '../../src/core/types.js';
import { pythonFunctions } from '../helpers/stages.js';

const pruner = createPruner({ scorer: 'heuristic' });
const code = pythonFunctions(240);

const cases: [string, PruneRequest, string[]][] = [
  ['empty input', { code: '' }, ['empty-input']],
  ['binary input', { code: 'a\u0000b\n', query: 'q' }, ['binary-input']],
  ['no query', { code }, ['no-query']],
  ['a budget nothing fits', { code, tokens: 2 }, ['budget-too-small']],
  ['a long query', { code, query: 'f3 '.repeat(7000) }, ['query-truncated']],
  ['nothing relevant', { code, query: 'zebra giraffe', threshold: 0.5 }, ['nothing-relevant']],
];

describe('prune() diagnostics', () => {
  for (const [name, req, codes] of cases) {
    it(name, async () => {
      const r = await pruner.prune(req);
      expect(r.diagnostics.map((d) => d.code)).toEqual(codes);
      expect(r.warnings).toEqual(r.diagnostics.map((d) => d.message));
    });
  }

  it('none on an ordinary prune', async () => {
    const r = await pruner.prune({ code, query: 'f3', ratio: 3 });
    expect(r.diagnostics).toEqual([]);
    expect(r.warnings).toEqual([]);
  });
});
