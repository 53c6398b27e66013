import { describe, expect, it } from 'vitest';
import { type BenchCase, clusterHunks, countCases, readCases, toCase } from '../../src/bench/cases.js';

const FIX = new URL('../fixtures/bench/', import.meta.url).pathname;

async function all(file: string, limit?: number): Promise<BenchCase[]> {
  const out: BenchCase[] = [];
  for await (const c of readCases(FIX + file, limit)) out.push(c);
  return out;
}

describe('case readers', () => {
  it('swebench style: labels are gold ∪ anchor inside the file, hunks from the diff', async () => {
    const [c] = await all('swebench.jsonl');
    expect(c.format).toBe('swebench');
    expect(c.query).toBe('fix line5');
    expect(c.files.map((f) => f.role)).toEqual(['gold', 'distractor']);
    // 99 is past the 20-line file: dropped.
    expect(c.files[0].labels).toEqual([5, 6, 9]);
    expect(c.files[0].hunks).toEqual([[5, 6], [9]]);
    expect(c.files[1].labels).toEqual([]);
  });

  it('goal-hint style (gzipped): labels are the answer lines only, not support lines', async () => {
    const [c] = await all('goalhint.jsonl.gz');
    expect(c.format).toBe('goalhint');
    expect(c.taskType).toBe('code-locate');
    expect(c.files[0].labels).toEqual([3, 4]);
    expect(c.files[0].langHint).toBe('python');
    expect(c.files[0].hunks).toEqual([]);
  });

  it('commit style: only the val split, labels gold ∪ anchor, hunks as label clusters', async () => {
    const cs = await all('commits.jsonl');
    expect(cs).toHaveLength(1);
    expect(await countCases(FIX + 'commits.jsonl')).toBe(1);
    const f = cs[0].files[0];
    expect(cs[0].format).toBe('commit');
    expect(f.labels).toEqual([2, 3, 12, 20]);
    expect(f.hunks).toEqual([[2, 3], [12], [20]]);
    expect(f.langHint).toBe('go');
    const [p] = await all('polyglot.jsonl');
    expect(p.format).toBe('commit');
    expect(p.files[0].labels).toEqual([2, 3, 12, 20]);
  });

  it('replay style: one observation, gold when it shows a gold line, run id kept', async () => {
    const cs = await all('replay.jsonl');
    expect(cs.map((c) => c.format)).toEqual(['replay', 'replay']);
    expect(cs[0].runId).toBe('r-1');
    expect(cs[0].files[0]).toMatchObject({ role: 'gold', labels: [4], obsKind: 'numbered', path: 'a.py' });
    expect(cs[1].files[0]).toMatchObject({ role: 'distractor', labels: [], obsKind: 'file' });
  });

  it('respects --limit and counts what it will yield', async () => {
    expect(await all('replay.jsonl', 1)).toHaveLength(1);
    expect(await countCases(FIX + 'replay.jsonl', 1)).toBe(1);
    expect(await countCases(FIX + 'replay.jsonl')).toBe(2);
  });

  it('rejects records of an unknown shape with a clear message', () => {
    expect(() => toCase({ foo: 1 }, '1')).toThrow(/unrecognized case format/);
  });

  it('clusters labelled lines like git merges nearby hunks', () => {
    expect(clusterHunks([1, 2, 9, 17, 30])).toEqual([[1, 2, 9], [17], [30]]);
    expect(clusterHunks([])).toEqual([]);
  });

  it('reads every real suite format', async () => {
    for (const [file, format] of [
      ['real-swebench.jsonl', 'swebench'],
      ['real-goalhint.jsonl', 'goalhint'],
      ['real-polyglot.jsonl', 'commit'],
      ['real-replay.jsonl', 'replay'],
    ] as const) {
      const cs = await all(file);
      expect(cs.length).toBeGreaterThan(0);
      for (const c of cs) expect(c.format).toBe(format);
      expect(cs.some((c) => c.files.some((f) => f.role === 'gold' && f.labels.length > 0))).toBe(true);
    }
  });
});
