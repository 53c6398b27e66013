/**
 * Budget mode on small, deeply nested files at tight budgets: real cases (the shipped model's
 * scores on polyglot-dev files, frozen in a fixture so retraining cannot make the test vacuous)
 * that came out with every line omitted.
 * - express `plugins/view.js` at 4x: the two best lines fit (`render(cache[view])` and the `else`
 *   below it), but the `else` without its body does not parse, and the fixer dropped the selected
 *   lines one error at a time down to none. The best line alone fits and parses.
 * - gin `render/text.go` at 4x: the best line is an `if` whose `else` branch and function come with
 *   it, more than the budget. Lower-ranked lines need less.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pruneWith } from '../../src/core/prune.js';
import { checkSyntax } from '../../src/core/syntax/index.js';
import type { Scorer } from '../../src/core/types.js';
import { checkInvariants } from '../helpers/invariants.js';

interface Case {
  path: string;
  language: string;
  query: string;
  ratio: number;
  code: string;
  keep: number[];
}
const cases: Case[] = JSON.parse(readFileSync(path.resolve(__dirname, '../fixtures/repair/tight-budget.json'), 'utf8'));
const frozen = (c: Case): Scorer => ({ name: 'frozen', score: () => ({ keep: Float64Array.from(c.keep), docScore: 1 }) });
const byPath = (p: string) => cases.find((c) => c.path === p)!;

async function pruneCase(c: Case) {
  const req = { code: c.code, query: c.query, path: c.path, language: c.language, ratio: c.ratio };
  const r = await pruneWith(frozen(c), req);
  expect(checkInvariants(c.code, r)).toBeNull();
  expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / c.ratio));
  expect((await checkSyntax(r.text, c.language)).ok).toBe(true);
  expect(r.warnings.join('\n')).not.toMatch(/too small/);
  return r;
}

describe('budget mode at tight budgets', () => {
  it('a syntax fix that would drop every selected line gives way to a smaller selection', async () => {
    const c = byPath('lib/express/plugins/view.js');
    const r = await pruneCase(c);
    const best = c.keep.indexOf(Math.max(...c.keep));
    expect(c.code.split('\n')[best].trim()).toBe('render(cache[view])');
    expect(r.keepMask[best]).toBe(1);
  });

  it('when the best line does not fit with its context, lower-ranked lines that fit are kept', async () => {
    const c = byPath('render/text.go');
    const r = await pruneCase(c);
    const lines = c.code.split('\n');
    const kept = lines.filter((l, i) => r.keepMask[i] === 1 && l.trim() !== '');
    expect(kept.length).toBeGreaterThan(0);
    // what is kept is code with its enclosing function, not a stray blank or brace (at 41 tokens,
    // the function's header and closer: the first marker's "1 definition" takes what a line of
    // its body would cost)
    expect(kept.some((l) => l.startsWith('func '))).toBe(true);
    expect(kept.filter((l) => l.trim() !== '}').every((l) => l.startsWith('func '))).toBe(true);
    expect(r.text).toContain('(1-19): 1 definition');
  });
});
