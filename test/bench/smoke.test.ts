/**
 * CI smoke bench: the real `skim bench` command on a handful of real cases (one or two per
 * suite), every method, every budget kind. Checks the command and the report's shape, not the figures.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../src/bench/methods/names.js';
import { run } from '../../src/cli/cli.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIX = join(ROOT, 'test/fixtures/bench');
const SUITES = ['real-swebench', 'real-goalhint', 'real-polyglot', 'real-replay'];
const KEYS = [
  'method',
  'budget',
  'files',
  'recall_micro',
  'recall_file_mean',
  'files_all_kept',
  'hunks_all_kept',
  'compression_gold',
  'compression_distractor',
  'compression_all',
  'token_saving',
  'valid_rate',
  'latency_ms_p50',
  'latency_ms_p95',
];

let dir = '';
let report: { results: Record<string, unknown>[]; meta: Record<string, unknown> };
let md = '';
let svg = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skim-bench-'));
  // The real command line, in-process (bin/skim.js needs a build).
  const args = ['node', 'skim', 'bench'];
  for (const s of SUITES) args.push('--cases', join(FIX, `${s}.jsonl`));
  args.push('--methods', 'all', '--budgets', 'adaptive,4,8', '--limit', '3');
  args.push('--json', join(dir, 'r.json'), '--md', join(dir, 'r.md'), '--plot', join(dir, 'r.svg'));
  await run(args);
  expect(process.exitCode ?? 0).toBe(0);
  report = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8'));
  md = await readFile(join(dir, 'r.md'), 'utf8');
  svg = await readFile(join(dir, 'r.svg'), 'utf8');
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('skim bench smoke', () => {
  it('writes one result per suite, method and budget with the documented keys', () => {
    const rows = report.results;
    for (const suite of SUITES) {
      for (const m of METHOD_NAMES) {
        const budgets = rows.filter((r) => r.suite === suite && r.method === m).map((r) => r.budget);
        if (m === 'full' || m === 'repomix') expect(budgets, `${suite} ${m}`).toEqual(['natural']);
        else if (m === 'head' || m === 'random') expect(budgets, `${suite} ${m}`).toEqual(['4x', '8x']);
        else expect(budgets, `${suite} ${m}`).toEqual(['adaptive', '4x', '8x']);
      }
    }
    for (const r of rows) {
      for (const k of KEYS) expect(r, `${r.suite} ${r.method} ${r.budget}`).toHaveProperty(k);
      for (const k of KEYS.slice(2)) expect(r[k] === null || typeof r[k] === 'number', `${k} of ${r.method}`).toBe(true);
      expect(r.errors, `${r.suite} ${r.method} ${r.budget}`).toBe(0);
      expect(r.files).toBeGreaterThan(0);
    }
  });

  it('adds the per-language breakdown for commit-style cases and replay figures for replay', () => {
    const poly = report.results.find((r) => r.suite === 'real-polyglot' && r.method === 'skim')!;
    expect(Object.keys(poly.by_language as object).sort()).toEqual(['go', 'kotlin']);
    const replay = report.results.find((r) => r.suite === 'real-replay' && r.method === 'bm25')!;
    expect(replay.replay).toMatchObject({ reads: 3 });
    expect(replay.replay).toHaveProperty('token_saving_net_rereads');
  });

  it('writes the markdown tables and a vega SVG plot', () => {
    expect(md).toContain('### real-swebench');
    expect(md).toContain('| method | budget |');
    expect(md).toContain('read tokens saved');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('recall');
  });
});
