/**
 * Threshold mode when syntax repair cannot converge: a real case (the shipped model's scores on a
 * goalhint-dev file, frozen in a fixture so retraining cannot make the test vacuous) where the
 * repaired selection did not parse within the fixer's rounds and the file collapsed to one
 * marker, dropping every answer line. Without a budget, the fixer now gets more local rounds;
 * should it still fail, the output falls back to the unrepaired selection (when that parses) or
 * to the input whole, never to a lone marker.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pruneWith } from '../../src/core/prune.js';
import { checkSyntax } from '../../src/core/syntax/index.js';
import type { Scorer } from '../../src/core/types.js';
import { checkInvariants } from '../helpers/invariants.js';

const fx = JSON.parse(readFileSync(path.resolve(__dirname, '../fixtures/repair/threshold-collapse.json'), 'utf8'));
const frozen: Scorer = { name: 'frozen', defaultThreshold: fx.threshold, score: () => ({ keep: Float64Array.from(fx.keep), docScore: 1 }) };

describe('threshold mode, repair that cannot converge', () => {
  it('keeps the selected lines instead of collapsing the file to a marker', async () => {
    const req = { code: fx.code, query: fx.query, path: fx.path, language: fx.language };
    const plain = await pruneWith(frozen, { ...req, repair: false });
    const r = await pruneWith(frozen, req);
    expect(checkInvariants(req.code, r)).toBeNull();
    expect(r.warnings.join('\n')).not.toMatch(/collapsed to a marker/);
    // every line the scorer selected is still there (before: none; then, with more rounds, two
    // thirds: the cause was an f-string whose closing quotes were omitted, see
    // prune.multilineString.test.ts)
    let selected = 0;
    let still = 0;
    for (let i = 0; i < plain.keepMask.length; i++) {
      selected += plain.keepMask[i];
      if (plain.keepMask[i] && r.keepMask[i]) still++;
    }
    expect(selected).toBeGreaterThan(50);
    expect(still).toBe(selected);
    expect(r.tokensOut).toBeLessThan(r.tokensIn);
    expect((await checkSyntax(r.text, fx.language)).ok).toBe(true);
    // it converges with threshold mode's larger round allowance, so the fallbacks are not needed
    // here (the one diagnostic is the read policy's: the file is longer than it was fitted on)
    expect(r.diagnostics.map((d) => d.code)).toEqual(['long-read']);
  });
});
