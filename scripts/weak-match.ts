/**
 * How well "weak match" (src/core/policy/confidence.ts) tells a read that lost its answer lines:
 * every file of a bench suite pruned in the default mode with its hint, then, per bound on the best
 * line's score (as a multiple of the calibrated τ), how many gold files that kept under a fifth of
 * their answer lines, gold files that kept half or more, and unrelated files it flags.
 *
 *   npx tsx scripts/weak-match.ts [--cases ../shared/bench/swebench-dev.jsonl.gz]
 */
import { parseArgs } from 'node:util';
import { readJsonRecords } from '../src/bench/cases.js';
import { prune } from '../src/core/prune.js';

const { values: args } = parseArgs({ options: { cases: { type: 'string', default: '../shared/bench/swebench-dev.jsonl.gz' } } });

interface Row {
  gold: boolean;
  ratio: number;
  recall: number;
}
const rows: Row[] = [];
type BenchCase = { query: string; files: { path: string; role: string; content: string; gold_lines?: number[] }[] };
for await (const { rec } of readJsonRecords(args.cases!)) {
  const c = rec as unknown as BenchCase;
  for (const f of c.files) {
    const r = await prune({ code: f.content, query: c.query, path: f.path, explain: true });
    if (!r.explain?.length || r.calibratedThreshold === undefined || r.omitted.length === 0) continue;
    const best = r.explain.reduce((m, e) => Math.max(m, e.score), 0);
    const gold = f.gold_lines ?? [];
    rows.push({
      gold: f.role === 'gold',
      ratio: best / r.calibratedThreshold,
      recall: gold.length ? gold.filter((k) => r.keepMask[k - 1]).length / gold.length : Number.NaN,
    });
  }
}
const lost = rows.filter((r) => r.gold && r.recall < 0.2);
const kept = rows.filter((r) => r.gold && r.recall >= 0.5);
const unrelated = rows.filter((r) => !r.gold);
console.log(
  `${args.cases}: pruned files ${rows.length} (gold that kept < 1/5 of answer lines ${lost.length}, >= 1/2 ${kept.length}; unrelated ${unrelated.length})`,
);
console.log('| best line under | gold, kept < 1/5 | gold, kept >= 1/2 | unrelated |\n|---:|---:|---:|---:|');
for (const x of [1, 2, 4, 8, 12, 20]) {
  const n = (set: Row[]) => set.filter((r) => r.ratio < x).length;
  console.log(`| ${x}x τ | ${n(lost)} of ${lost.length} | ${n(kept)} of ${kept.length} | ${n(unrelated)} of ${unrelated.length} |`);
}
