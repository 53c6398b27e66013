import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkim } from '../helpers/cli.js';
import { createHistoryFixture } from './gitRepo.js';

/** The command in-process (test/helpers/cli.ts). */
const run = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  const r = await runSkim(args, { stdin: 'none' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('skim data / skim adapt from the command line', () => {
  let repo: string;
  let tmp: string;
  let remove: () => void;
  beforeAll(() => {
    ({ repo, tmp, remove } = createHistoryFixture(400, 'skim-cli-data-'));
  });
  afterAll(() => remove());

  it('mines a history: JSON counts on stdout, one sample per changed file', async () => {
    const out = join(tmp, 'mined.jsonl');
    const r = await run('data', 'mine', '--repo', repo, '--out', out, '--name', 'me/hist');
    expect(r.code).toBe(0);
    const stats = JSON.parse(r.stdout);
    expect(stats.commits.seen).toBe(400);
    expect(stats.commits.dropped.root).toBe(1);
    const samples = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(samples).toHaveLength(399);
    expect(samples.every((s) => s.repo === 'me/hist' && s.gold_lines.length === 1)).toBe(true);
    expect(r.stderr).toMatch(/400 commits walked/);
  });

  it('gives one-line errors for bad input', async () => {
    const [a, b, c] = await Promise.all([
      run('data', 'mine', '--repo', join(tmp, 'nope'), '--out', join(tmp, 'x.jsonl')),
      run('data', 'synth', '--corpus', repo, '--endpoint', 'not a url', '--model', 'm', '--out', join(tmp, 'y.jsonl')),
      run('adapt', '--repo', repo, '--init', join(tmp, 'no-model'), '--out', join(tmp, 'm')),
    ]);
    expect(a.code).toBe(66);
    expect(a.stderr.trim().split('\n')).toHaveLength(1);
    expect(b.code).toBe(64);
    expect(b.stderr).toMatch(/--endpoint is not a URL/);
    expect(c.code).toBe(66);
    expect(c.stderr).toMatch(/no model to start from/);
  });

  it('adapt trains, compares on held-back commits and writes the model only when it is better (or forced)', async () => {
    const out = join(tmp, 'adapted');
    const r = await run('adapt', '--repo', repo, '--from-scratch', '--epochs', '1', '--max-train', '80', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/heuristic +R@4x \d\.\d{3} +R@8x \d\.\d{3}/);
    expect(r.stdout).toMatch(/adapted +R@4x \d\.\d{3} +R@8x \d\.\d{3}/);
    const better = /adapted model is better/.test(r.stdout);
    expect(existsSync(join(out, 'model.json'))).toBe(better);
    const forced = await run('adapt', '--repo', repo, '--from-scratch', '--epochs', '1', '--max-train', '80', '--out', out, '--force');
    expect(forced.code).toBe(0);
    expect(existsSync(join(out, 'model.json'))).toBe(true);
    const report = JSON.parse(readFileSync(join(out, 'adapt-report.json'), 'utf8'));
    expect(report.comparison.files).toBeGreaterThanOrEqual(10);
  });
});
