/**
 * In-process latency of prune() on real files of ~1,000 and ~5,000 lines (swebench-dev gold
 * files with their issue texts), p50/p95 over repeated calls after one warm-up, per scorer; then
 * scoring alone (features and both model stages, no syntax, selection or repair) on the ~1,000-line
 * files, a fresh query string each call. Wall time, and CPU time of the process (robust to other
 * jobs on the machine).
 *   npx tsx scripts/latency.ts [--scorer learned|heuristic] [--runs 20] [--cases swebench-dev.jsonl.gz] [--scoring-only]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createPruner } from '../src/core/prune.js';
import { buildSyntaxIndex, detectLanguage, ensureGrammar } from '../src/core/syntax/index.js';
import { configureCoreFromEnv } from '../src/env.js';

configureCoreFromEnv(process.env); // SKIM_ANALYSIS_CACHE=0: every text as new; SKIM_NO_WASM: the JavaScript hidden layer

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const scorer = (opt('--scorer') ?? 'learned') as 'learned' | 'heuristic';
const runs = Number(opt('--runs') ?? 20);
const file = path.resolve(opt('--cases') ?? path.resolve(import.meta.dirname ?? '.', '../../shared/bench/swebench-dev.jsonl.gz'));

interface Case {
  query: string;
  files: { path: string; content: string; role: string }[];
}
const cases = zlib
  .gunzipSync(readFileSync(file))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Case);

function pick(target: number, count: number) {
  const all = cases.flatMap((c) =>
    c.files.filter((f) => f.role === 'gold').map((f) => ({ query: c.query, path: f.path, code: f.content, n: f.content.split('\n').length })),
  );
  return all.sort((a, b) => Math.abs(a.n - target) - Math.abs(b.n - target)).slice(0, count);
}

const pct = (xs: number[], p: number) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

const pruner = createPruner({ scorer });
console.log(`scorer: ${(await pruner.scorer()).name}; runs per file: ${runs}`);
for (const target of args.includes('--scoring-only') ? [] : [1000, 5000]) {
  const files = pick(target, 5);
  for (const mode of [{ name: 'threshold' }, { name: 'ratio 4', ratio: 4 }]) {
    const times: number[] = [];
    const cpu: number[] = [];
    for (const f of files) {
      await pruner.prune({ code: f.code, query: f.query, path: f.path, ratio: mode.ratio }); // warm-up (grammar load, caches)
      for (let i = 0; i < runs; i++) {
        const c = process.cpuUsage();
        const t = performance.now();
        await pruner.prune({ code: f.code, query: f.query, path: f.path, ratio: mode.ratio });
        times.push(performance.now() - t);
        cpu.push(cpuMs(c));
      }
    }
    const sizes = files.map((f) => f.n).join(', ');
    console.log(
      `~${target} lines (${sizes}) ${mode.name}: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms; CPU p50 ${pct(cpu, 50).toFixed(1)} ms`,
    );
  }
}

// scoring alone on the ~1,000-line files: what the learned skimmer costs per call
const s = await pruner.scorer();
const times: number[] = [];
const cpu: number[] = [];
for (const f of pick(1000, 5)) {
  const language = detectLanguage(f.path, f.code);
  await ensureGrammar(language);
  const lines = f.code.split('\n');
  const input = { query: f.query, lines, syntax: buildSyntaxIndex(lines, language), language, path: f.path };
  s.score(input); // warm-up
  for (let i = 0; i < runs; i++) {
    const query = `${f.query}${' '.repeat(i + 1)}`; // a fresh query string: nothing cached from the last call
    const c = process.cpuUsage();
    const t = performance.now();
    s.score({ ...input, query });
    times.push(((performance.now() - t) * 1000) / lines.length);
    cpu.push((cpuMs(c) * 1000) / lines.length);
  }
}
console.log(
  `scoring alone (${s.name}), per 1,000 lines: p10 ${pct(times, 10).toFixed(2)} ms, p50 ${pct(times, 50).toFixed(2)} ms, p95 ${pct(times, 95).toFixed(2)} ms; CPU p50 ${pct(cpu, 50).toFixed(2)} ms`,
);
