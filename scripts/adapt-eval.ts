/**
 * The issue-6 measurement: for each repository of ../shared/data/commits.jsonl.gz, fine-tune the
 * shipped model on that repository's `train` samples and compare before/after recall of gold ∪
 * anchor lines at 4x and 8x on its `val` samples (the trainer's noise filter applied to both).
 *   npx tsx scripts/adapt-eval.ts [--repos sympy/sympy,sphinx-doc/sphinx,pytest-dev/pytest]
 *     [--init models/default | --init none] [--max-train 1500] [--epochs 4] [--bridge init|refit]
 *     [--work scratch/adapt-eval] [--json FILE]
 *     [--feature-bridge held-out|none] [--unseen]
 * With --init none it trains from scratch per repository and compares with the heuristic scorer.
 * With --unseen the repository is treated as one the shipped model never saw, as a user's own
 * would be: the base is the shipped weights with a bridge fitted WITHOUT the repository's commits,
 * and fine-tuning starts from that base (use --bridge merge to extend its bridge with the
 * repository's train commits, cross-fitted).
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bridgeToJson } from '../src/core/features/bridge.js';
import { scorerFromModel } from '../src/core/model/index.js';
import { loadModel } from '../src/core/model/io.js';
import type { Scorer } from '../src/core/types.js';
import { baseScorer, compareOnVal, fineTune, readRepoSamples } from '../src/data/adapt.js';
import { type LabeledFile, readCases } from '../src/train/datasets.js';
import { charCosts, recallOf, selectTopK } from '../src/train/metrics.js';
import { fitBridges } from '../src/train/prepare.js';
import { loadSyntaxSource } from '../src/train/syntaxSource.js';

/**
 * Paired bootstrap over val files of the change in micro recall (adapted - base) at one budget:
 * the 2.5% and 97.5% quantiles of 2,000 resamples (fixed seed).
 */
async function bootstrapDelta(val: LabeledFile[], a: Scorer, b: Scorer): Promise<{ r4: [number, number]; r8: [number, number] }> {
  const syntax = await loadSyntaxSource();
  const per: { tot: number; a4: number; b4: number; a8: number; b8: number }[] = [];
  for (const f of val) {
    if (!f.agg.length) continue;
    await syntax.prepare(f.lang);
    const input = { query: f.query, lines: f.lines, syntax: syntax.build(f.lines, f.lang), language: f.lang, path: f.path };
    const costs = charCosts(f.lines);
    const total = costs.reduce((x, y) => x + y, 0);
    const hits = (s: Scorer, k: number) => recallOf(selectTopK(s.score(input).keep, costs, total / k), f.agg).hit;
    per.push({ tot: f.agg.length, a4: hits(a, 4), b4: hits(b, 4), a8: hits(a, 8), b8: hits(b, 8) });
  }
  let seed = 12345;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const d4: number[] = [];
  const d8: number[] = [];
  for (let k = 0; k < 2000; k++) {
    let t = 0,
      x4 = 0,
      x8 = 0;
    for (let i = 0; i < per.length; i++) {
      const p = per[Math.floor(rand() * per.length)];
      t += p.tot;
      x4 += p.a4 - p.b4;
      x8 += p.a8 - p.b8;
    }
    d4.push(x4 / t);
    d8.push(x8 / t);
  }
  const q = (a: number[]): [number, number] => {
    const s = [...a].sort((x, y) => x - y);
    return [s[Math.floor(0.025 * s.length)], s[Math.floor(0.975 * s.length)]];
  };
  return { r4: q(d4), r8: q(d8) };
}

const args = process.argv.slice(2);
const opt = (name: string, dflt?: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const repos = (opt('--repos', 'sympy/sympy,sphinx-doc/sphinx,pytest-dev/pytest') ?? '').split(',').filter(Boolean);
const initArg = opt('--init', 'models/default')!;
const init = initArg === 'none' ? undefined : initArg;
const maxTrain = Number(opt('--max-train', '1500'));
const epochs = opt('--epochs') ? Number(opt('--epochs')) : undefined;
const bridge = (opt('--bridge', 'init') ?? 'init') as 'init' | 'refit' | 'merge';
const unseen = args.includes('--unseen');
const work = opt('--work', 'scratch/adapt-eval')!;
// features of the fine-tuning samples from a bridge fitted WITHOUT this repository (the shipped
// bridge saw its train samples); "none" uses the shipped bridge as is (leaky, for comparison)
const featureBridgeMode = opt('--feature-bridge', 'held-out') as 'held-out' | 'none';
const data = path.resolve(import.meta.dirname ?? '.', '../../shared/data/commits.jsonl.gz');
if (init && !existsSync(path.join(init, 'model.json'))) {
  console.error(`no model in ${init} (pass --init none to train from scratch)`);
  process.exit(66);
}

const t0 = Date.now();
// one streaming pass over the 246 MB file, grouped by repository
const byRepo = new Map<string, { train: LabeledFile[]; val: LabeledFile[] }>();
const allTrain: LabeledFile[] = [];
{
  const all = await readRepoSamples(data);
  allTrain.push(...all.train);
  for (const f of [...all.train, ...all.val]) {
    if (!repos.includes(f.repo)) continue;
    let g = byRepo.get(f.repo);
    if (!g) byRepo.set(f.repo, (g = { train: [], val: [] }));
    g[f.split].push(f);
  }
  console.error(`read ${all.filter.total} samples (${all.filter.kept} pass the filter) in ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}

const results = [];
for (const repo of repos) {
  const g = byRepo.get(repo);
  if (!g) {
    console.error(`${repo}: no samples`);
    continue;
  }
  const out = path.join(work, repo.replace('/', '__'));
  mkdirSync(out, { recursive: true });
  console.error(`${repo}: ${g.train.length} train, ${g.val.length} val samples after the filter`);
  let featureBridge;
  let initDir = init;
  if (init && (unseen || (bridge === 'init' && featureBridgeMode === 'held-out'))) {
    const teacher = await readCases(path.join(path.dirname(data), 'teacher-train.jsonl.gz'), 'teacher');
    const without = fitBridges([], [...allTrain.filter((f) => f.repo !== repo), ...teacher]).full;
    console.error(`  bridge fitted without ${repo}: ${without.table.size} query terms`);
    if (unseen) {
      // the shipped weights with a bridge that never saw this repository: the base a user's repo meets
      initDir = path.join(out, 'base-unseen');
      mkdirSync(initDir, { recursive: true });
      copyFileSync(path.join(init, 'model.json'), path.join(initDir, 'model.json'));
      writeFileSync(path.join(initDir, 'bridge.json'), JSON.stringify(bridgeToJson(without)) + '\n');
    } else featureBridge = without;
  }
  const ft = await fineTune({ train: g.train, init: initDir, out, maxTrain, epochs, bridge, featureBridge, log: (m) => console.error(`  ${m}`) });
  const base = baseScorer(initDir);
  const cmp = await compareOnVal(g.val, base, out);
  const ci = await bootstrapDelta(g.val, scorerFromModel(loadModel(out), 'adapted'), base.scorer);
  const row = {
    repo,
    ci95: ci,
    trainSamples: ft.fit,
    tuneSamples: ft.tune,
    valFiles: cmp.files,
    valLines: cmp.labelled,
    before: cmp.before,
    after: cmp.after,
    better: cmp.better,
    bestEpoch: ft.bestEpoch,
    trainSeconds: ft.seconds,
  };
  results.push(row);
  console.error(`  95% CI of the change: R@4x [${ci.r4.map((x) => x.toFixed(3)).join(', ')}], R@8x [${ci.r8.map((x) => x.toFixed(3)).join(', ')}]`);
  console.error(
    `  ${cmp.before.name} R@4x ${cmp.before.r4.toFixed(3)} R@8x ${cmp.before.r8.toFixed(3)} -> adapted R@4x ${cmp.after.r4.toFixed(3)} R@8x ${cmp.after.r8.toFixed(3)} (${ft.seconds.toFixed(0)}s)`,
  );
}

const f3 = (x: number) => x.toFixed(3);
const sg = (x: number) => (x >= 0 ? '+' : '') + f3(x);
const lines = [
  `| repo | train samples | val files (lines) | ${init ? 'shipped' : 'heuristic'} R@4x | R@8x | adapted R@4x | R@8x | Δ R@4x [95% CI] | Δ R@8x [95% CI] |`,
  '|---|---|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.repo} | ${r.trainSamples} | ${r.valFiles} (${r.valLines}) | ${f3(r.before.r4)} | ${f3(r.before.r8)} | ${f3(r.after.r4)} | ${f3(r.after.r8)} | ${sg(r.after.r4 - r.before.r4)} [${sg(r.ci95.r4[0])}, ${sg(r.ci95.r4[1])}] | ${sg(r.after.r8 - r.before.r8)} [${sg(r.ci95.r8[0])}, ${sg(r.ci95.r8[1])}] |`,
  ),
];
console.log(lines.join('\n'));
const json = opt('--json');
if (json)
  writeFileSync(
    json,
    JSON.stringify(
      {
        command: `npx tsx scripts/adapt-eval.ts ${args.join(' ')}`,
        date: new Date().toISOString(),
        init: init ?? null,
        unseen,
        bridge,
        featureBridge: featureBridgeMode,
        maxTrain,
        results,
      },
      null,
      1,
    ) + '\n',
  );
console.error(`done in ${((Date.now() - t0) / 1000).toFixed(0)}s`);
