/**
 * In-process latency of prune() on real files of ~1,000 and ~5,000 lines (swebench-dev gold
 * files with their issue texts), p50/p95 over repeated calls after one warm-up, per scorer.
 *   npx tsx scripts/latency.ts [--scorer learned|heuristic] [--runs 20]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createPruner } from '../src/core/prune.js';

const args = process.argv.slice(2);
const scorer = (args[args.indexOf('--scorer') + 1] ?? 'learned') as 'learned' | 'heuristic';
const runs = Number(args.includes('--runs') ? args[args.indexOf('--runs') + 1] : 20);
const file = path.resolve(import.meta.dirname ?? '.', '../../shared/bench/swebench-dev.jsonl.gz');

interface Case { query: string; files: { path: string; content: string; role: string }[] }
const cases = zlib.gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Case);

function pick(target: number, count: number) {
  const all = cases.flatMap((c) => c.files.filter((f) => f.role === 'gold').map((f) => ({ query: c.query, path: f.path, code: f.content, n: f.content.split('\n').length })));
  return all.sort((a, b) => Math.abs(a.n - target) - Math.abs(b.n - target)).slice(0, count);
}

const pct = (xs: number[], p: number) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const pruner = createPruner({ scorer });
console.log(`scorer: ${(await pruner.scorer()).name}; runs per file: ${runs}`);
for (const target of [1000, 5000]) {
  const files = pick(target, 5);
  for (const mode of [{ name: 'threshold' }, { name: 'ratio 4', ratio: 4 }]) {
    const times: number[] = [];
    for (const f of files) {
      await pruner.prune({ code: f.code, query: f.query, path: f.path, ratio: mode.ratio }); // warm-up (grammar load, caches)
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        await pruner.prune({ code: f.code, query: f.query, path: f.path, ratio: mode.ratio });
        times.push(performance.now() - t);
      }
    }
    const sizes = files.map((f) => f.n).join(', ');
    console.log(`~${target} lines (${sizes}) ${mode.name}: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms`);
  }
}
