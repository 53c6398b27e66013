/**
 * Wording robustness: the same need asked three ways (the goal hint of goalhint-dev, a reworded
 * version and a terse one, written by the teacher: data/rephrasings/), each pruning the gold file;
 * per case the spread of answer-line recall across the three. A pruner whose answers depend on
 * wording has a wide spread.
 *
 *   npx tsx scripts/rephrasing.ts [--cases ../shared/bench/goalhint-dev.jsonl.gz]
 *     [--rephrasings data/rephrasings/goalhint-dev.jsonl] [--ratio 4]
 *
 * Three modes: the default (read policy, no session: a first read of the file, so one under
 * 10,000 characters comes back whole), threshold mode at the calibrated τ (the policy bypassed)
 * and budget mode at --ratio. Prints mean recall per phrasing, the mean spread (max - min per case), and the cases
 * where one phrasing keeps under a fifth of the answer lines while another keeps half or more.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readJsonRecords } from '../src/bench/cases.js';
import { prune } from '../src/core/prune.js';

const { values: args } = parseArgs({
  options: {
    cases: { type: 'string', default: '../shared/bench/goalhint-dev.jsonl.gz' },
    rephrasings: { type: 'string', default: 'data/rephrasings/goalhint-dev.jsonl' },
    ratio: { type: 'string', default: '4' },
  },
});

const PHRASINGS = ['original', 'reworded', 'terse'] as const;
type Phrasing = (typeof PHRASINGS)[number];
const alt = new Map<string, { reworded: string; terse: string }>();
for (const line of readFileSync(args.rephrasings!, 'utf8').split('\n')) if (line.trim()) alt.set(JSON.parse(line).id, JSON.parse(line));

type BenchCase = { id: string; query: string; files: { path: string; role: string; content: string; gold_lines: number[] }[] };
const modes = { default: {}, 'calibrated τ': { relativeThreshold: 0.5 }, [`ratio ${args.ratio}`]: { ratio: Number(args.ratio) } } as const;
const recalls: Record<string, Record<Phrasing, number[]>> = {};
for (const m of Object.keys(modes)) recalls[m] = { original: [], reworded: [], terse: [] };
let cases = 0;
for await (const { rec } of readJsonRecords(args.cases!)) {
  const c = rec as unknown as BenchCase;
  const a = alt.get(c.id);
  const gold = c.files.find((f) => f.role === 'gold');
  if (!a || !gold || gold.gold_lines.length === 0) continue;
  cases++;
  const queries: Record<Phrasing, string> = { original: c.query, reworded: a.reworded, terse: a.terse };
  for (const [mode, extra] of Object.entries(modes))
    for (const p of PHRASINGS) {
      const r = await prune({ code: gold.content, path: gold.path, query: queries[p], ...extra });
      recalls[mode][p].push(gold.gold_lines.filter((k) => r.keepMask[k - 1]).length / gold.gold_lines.length);
    }
}
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
console.log(`${cases} cases of ${args.cases} with rephrasings (${args.rephrasings})\n`);
console.log('| mode | recall: original / reworded / terse | mean spread (max - min) | cases one phrasing < 0.2 while another >= 0.5 |');
console.log('|---|---|---:|---:|');
for (const mode of Object.keys(modes)) {
  const r = recalls[mode];
  const spreads = r.original.map((_, i) => Math.max(...PHRASINGS.map((p) => r[p][i])) - Math.min(...PHRASINGS.map((p) => r[p][i])));
  const flips = r.original.filter((_, i) => Math.min(...PHRASINGS.map((p) => r[p][i])) < 0.2 && Math.max(...PHRASINGS.map((p) => r[p][i])) >= 0.5).length;
  console.log(`| ${mode} | ${PHRASINGS.map((p) => mean(r[p]).toFixed(3)).join(' / ')} | ${mean(spreads).toFixed(3)} | ${flips} of ${cases} |`);
}
