import { describe, expect, it } from 'vitest';
import { CONTEXT_FEATURE_NAMES, contextFeatures, NUM_CONTEXT_FEATURES, withContext } from '../../../src/core/features/contextFeatures.js';
import { buildSimpleSyntaxIndex } from '../../helpers/simpleSyntax.js';

const col = (X: Float64Array, name: string, n: number): number[] => {
  const j = CONTEXT_FEATURE_NAMES.indexOf(name);
  return Array.from({ length: n }, (_, i) => X[i * NUM_CONTEXT_FEATURES + j]);
};

// two functions; the first stage likes one line of the second
const lines = [
  'import os',
  '',
  'def load(path):',
  '    with open(path) as f:',
  '        return f.read()',
  '',
  'def save(path, data):',
  '    tmp = path + ".tmp"',
  '    with open(tmp, "w") as f:',
  '        f.write(data)',
  '    os.replace(tmp, path)',
];
const n = lines.length;
const syntax = buildSimpleSyntaxIndex(lines, 'python');
const p = Float64Array.from(lines.map((_, i) => (i === 10 ? 0.8 : i === 8 ? 0.2 : 0.01)));

describe('contextFeatures', () => {
  const X = contextFeatures(p, 0.7, syntax, n);

  it('is relative to the best line and ranks it first', () => {
    expect(X.length).toBe(n * NUM_CONTEXT_FEATURES);
    expect(col(X, 'ctx_rel', n)[10]).toBeCloseTo(1);
    expect(col(X, 'ctx_rel', n)[8]).toBeCloseTo(0.25);
    expect(col(X, 'ctx_rank_pct', n)[10]).toBe(1);
    expect(col(X, 'ctx_rank_pct', n)[8]).toBeCloseTo(1 - 1 / (n - 1));
    expect(col(X, 'ctx_doc', n).every((v) => v === 0.7)).toBe(true);
  });

  it('window maxima equal a brute-force scan', () => {
    const rel = Array.from(p, (v) => v / 0.8);
    for (const [name, w] of [
      ['ctx_win2_max', 2],
      ['ctx_win5_max', 5],
    ] as const) {
      const got = col(X, name, n);
      for (let i = 0; i < n; i++) expect(got[i]).toBeCloseTo(Math.max(...rel.slice(Math.max(0, i - w), i + w + 1)));
    }
  });

  it('spreads the score over the enclosing definition only', () => {
    const sMax = col(X, 'ctx_scope_max', n);
    expect(sMax[7]).toBeCloseTo(1); // inside save()
    expect(sMax[3]).toBeLessThan(0.1); // inside load()
    expect(sMax[0]).toBe(0); // module level: no definition
    const rank = col(X, 'ctx_scope_rank_pct', n);
    expect(rank[7]).toBeGreaterThan(rank[3]);
    expect(col(X, 'ctx_near_strong', n)[10]).toBe(1);
    expect(col(X, 'ctx_near_strong', n)[0]).toBeLessThan(col(X, 'ctx_near_strong', n)[9]);
  });

  it('handles an empty segment and a flat score', () => {
    expect(contextFeatures(new Float64Array(0), 0.5, buildSimpleSyntaxIndex([], 'python'), 0).length).toBe(0);
    const flat = contextFeatures(new Float64Array(n).fill(0.3), 0.5, syntax, n);
    expect(col(flat, 'ctx_rank_pct', n).every((v) => v === 1)).toBe(true);
    expect(flat.every(Number.isFinite)).toBe(true);
  });

  it('withContext appends the context columns to each row', () => {
    const F = 3;
    const base = Float64Array.from({ length: n * F }, (_, k) => k);
    const both = withContext(base, F, X, n);
    expect(both.length).toBe(n * (F + NUM_CONTEXT_FEATURES));
    expect(Array.from(both.subarray(F + NUM_CONTEXT_FEATURES, F + NUM_CONTEXT_FEATURES + F))).toEqual([3, 4, 5]);
    expect(both[(F + NUM_CONTEXT_FEATURES) * 10 + F + 1]).toBeCloseTo(1);
  });
});
