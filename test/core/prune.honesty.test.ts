/**
 * Small honesty defects (issue #20 D): `kept` covers every returned line.
 */
import { describe, expect, it } from 'vitest';
import { createPruner } from '../../src/core/prune.js';
import { checkInvariants } from '../helpers/invariants.js';

const pruner = createPruner({ scorer: 'heuristic' });

describe('kept covers every returned line', () => {
  it('a file whose first byte is NUL comes back whole, and says it kept all of its lines', async () => {
    const code = '\u0000abc\nline two\nline three\n';
    const r = await pruner.prune({ code, query: 'abc' });
    expect(r.text).toBe(code);
    expect(r.kept).toEqual([[1, 3]]);
    expect(r.omitted).toEqual([]);
    expect(r.keepMask).toEqual(new Uint8Array([1, 1, 1]));
    expect(checkInvariants(code, r)).toBeNull();
  });
});
