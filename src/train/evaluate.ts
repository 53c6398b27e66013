/**
 * The ablation table for the learned skimmer: each scorer (heuristic, single CRF, LaMR) on the
 * commit val split, swebench-dev and goalhint-dev, recall of the labelled lines of gold files at
 * 4x and 8x, plus threshold mode (recall of fix lines, compression of distractor files).
 *
 * Two selection paths are reported:
 *  - "topk-chars": the evaluator's own greedy top-k by score under a character budget (no markers,
 *    no repair): measures the scorer alone;
 *  - "prune": the real pipeline, prune({ ratio }) with and without repair (o200k token budget,
 *    markers included) and prune({}) in threshold mode.
 */

import { createLearnedScorer } from '../core/model/index.js';
import { pruneWith } from '../core/prune.js';
import { createHeuristicScorer } from '../core/score/heuristic.js';
import { countTokens } from '../core/tokens/count.js';
import type { Scorer } from '../core/types.js';
import { type LabeledFile, readCases, readCommits } from './datasets.js';
import { charCosts, recallOf, selectTopK } from './metrics.js';
import { loadSyntaxSource } from './syntaxSource.js';
import { auc } from './trainer.js';

export interface EvalSet {
  name: string;
  files: LabeledFile[];
}

export interface ScorerSpec {
  name: string;
  scorer: Scorer;
}

export interface Row {
  set: string;
  scorer: string;
  goldFiles: number;
  labelled: number;
  topk4: number;
  topk8: number;
  prune4?: number;
  prune8?: number;
  prune4Repair?: number;
  prune8Repair?: number;
  thrRecall?: number;
  thrRecallRepair?: number;
  thrGoldCompression?: number;
  thrDistractorCompression?: number;
  thrDistractorCompressionRepair?: number;
  /** Document score: AUC of the gold files against the distractors (sets with distractors). */
  docAuc?: number;
  /** Per-file mean recall at 4x/8x (topk-chars). */
  topk4File: number;
  topk8File: number;
}

export async function loadEvalSets(opts: {
  commits?: string;
  swebench?: string;
  goalhint?: string;
  maxCommitVal?: number;
  limit?: number;
}): Promise<EvalSet[]> {
  const sets: EvalSet[] = [];
  if (opts.commits) {
    const st = { total: 0, noLabels: 0, vagueMessage: 0, hugeDiff: 0, tooShort: 0, kept: 0 };
    const files = (await readCommits(opts.commits, { maxTrain: 0, maxVal: opts.maxCommitVal ?? 400 }, st)).filter((f) => f.split === 'val');
    sets.push({ name: 'commits-val', files });
  }
  if (opts.swebench) sets.push({ name: 'swebench-dev', files: await readCases(opts.swebench, 'swebench', { limit: opts.limit }) });
  if (opts.goalhint) sets.push({ name: 'goalhint-dev', files: await readCases(opts.goalhint, 'goalhint', { limit: opts.limit }) });
  return sets;
}

export function scorersFor(models: { name: string; dir: string }[], withHeuristic = true): ScorerSpec[] {
  const out: ScorerSpec[] = [];
  if (withHeuristic) out.push({ name: 'heuristic', scorer: createHeuristicScorer() });
  for (const m of models) {
    const s = createLearnedScorer(m.dir);
    if (!s) throw new Error(`no model weights in ${m.dir}`);
    out.push({ name: m.name, scorer: s });
    // a model with later stages (context stage, neighbour lift) is also measured without them (ablation)
    if (s.loaded.context || s.loaded.header.lift) out.push({ name: `${m.name}-stage1`, scorer: createLearnedScorer(m.dir, { contextStage: false })! });
  }
  return out;
}

const ratioOf = (a: number, b: number): number => (b > 0 ? a / b : 0);

export async function evaluateSets(
  sets: EvalSet[],
  scorers: ScorerSpec[],
  opts: { prune?: boolean; onProgress?: (label: string, done: number, total: number) => void } = {},
): Promise<Row[]> {
  const syntax = await loadSyntaxSource();
  const rows: Row[] = [];
  for (const set of sets) {
    // syntax once per file, shared by all scorers
    const prepared = [];
    for (const f of set.files) {
      await syntax.prepare(f.lang);
      prepared.push({ f, syn: syntax.build(f.lines, f.lang) });
    }
    for (const sp of scorers) {
      const r: Row = { set: set.name, scorer: sp.name, goldFiles: 0, labelled: 0, topk4: 0, topk8: 0, topk4File: 0, topk8File: 0 };
      let h4 = 0;
      let h8 = 0;
      let p4 = 0;
      let p8 = 0;
      let p4r = 0;
      let p8r = 0;
      let thr = 0;
      let thrR = 0;
      let goldIn = 0;
      let goldOut = 0;
      let distIn = 0;
      let distOut = 0;
      let distOutR = 0;
      let k = 0;
      const withThreshold = set.name !== 'commits-val';
      const docGold: number[] = [];
      const docDistractor: number[] = [];
      for (const { f, syn } of prepared) {
        opts.onProgress?.(`${set.name} ${sp.name}`, ++k, prepared.length);
        const isGold = f.role === 'gold' && f.agg.length > 0;
        if (!isGold && !withThreshold) continue;
        const code = f.lines.join('\n') + '\n';
        if (isGold) {
          const s = sp.scorer.score({ query: f.query, lines: f.lines, syntax: syn, language: f.lang, path: f.path });
          docGold.push(s.docScore);
          const costs = charCosts(f.lines);
          let tot = 0;
          for (const c of costs) tot += c;
          const a = recallOf(selectTopK(s.keep, costs, tot / 4), f.agg);
          const b = recallOf(selectTopK(s.keep, costs, tot / 8), f.agg);
          h4 += a.hit;
          h8 += b.hit;
          r.topk4File += a.hit / a.total;
          r.topk8File += b.hit / b.total;
          r.labelled += a.total;
          r.goldFiles++;
          if (opts.prune) {
            const base = { code, query: f.query, path: f.path, language: f.lang };
            const q = async (extra: Record<string, unknown>) => pruneWith(sp.scorer, { ...base, ...extra });
            p4 += recallOf((await q({ ratio: 4, repair: false })).keepMask, f.agg).hit;
            p8 += recallOf((await q({ ratio: 8, repair: false })).keepMask, f.agg).hit;
            p4r += recallOf((await q({ ratio: 4 })).keepMask, f.agg).hit;
            p8r += recallOf((await q({ ratio: 8 })).keepMask, f.agg).hit;
            if (withThreshold) {
              // threshold mode at the calibrated τ (what calibration sets), without the read policy
              const t0 = await q({ repair: false, relativeThreshold: 0.5 });
              const t1 = await q({ relativeThreshold: 0.5 });
              thr += recallOf(t0.keepMask, f.agg).hit;
              thrR += recallOf(t1.keepMask, f.agg).hit;
              goldIn += t1.tokensIn;
              goldOut += t1.tokensOut;
            }
          }
        } else {
          if (f.role === 'distractor')
            docDistractor.push(sp.scorer.score({ query: f.query, lines: f.lines, syntax: syn, language: f.lang, path: f.path }).docScore);
          if (!opts.prune) continue;
          const base = { code, query: f.query, path: f.path, language: f.lang, relativeThreshold: 0.5 };
          const t0 = await pruneWith(sp.scorer, { ...base, repair: false });
          const t1 = await pruneWith(sp.scorer, base);
          distIn += t0.tokensIn;
          distOut += t0.tokensOut;
          distOutR += t1.tokensOut;
        }
      }
      r.topk4 = ratioOf(h4, r.labelled);
      r.topk8 = ratioOf(h8, r.labelled);
      r.topk4File = ratioOf(r.topk4File, r.goldFiles);
      r.topk8File = ratioOf(r.topk8File, r.goldFiles);
      if (docGold.length && docDistractor.length) r.docAuc = auc(docGold, docDistractor);
      if (opts.prune) {
        r.prune4 = ratioOf(p4, r.labelled);
        r.prune8 = ratioOf(p8, r.labelled);
        r.prune4Repair = ratioOf(p4r, r.labelled);
        r.prune8Repair = ratioOf(p8r, r.labelled);
        if (withThreshold) {
          r.thrRecall = ratioOf(thr, r.labelled);
          r.thrRecallRepair = ratioOf(thrR, r.labelled);
          r.thrGoldCompression = ratioOf(goldIn, goldOut);
          r.thrDistractorCompression = ratioOf(distIn, distOut);
          r.thrDistractorCompressionRepair = ratioOf(distIn, distOutR);
        }
      }
      rows.push(r);
    }
  }
  return rows;
}

const f3 = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(3));
const f1 = (v: number | undefined): string => (v === undefined ? '-' : `${v.toFixed(1)}x`);

export function formatTable(rows: Row[]): string {
  const head =
    '| set | scorer | gold files | topk-chars R@4x | R@8x | prune R@4x (no repair) | R@8x | prune R@4x (repair) | R@8x | thr recall (no repair / repair) | thr distractor compression (no repair / repair) | thr gold compression | doc AUC |';
  const sep = '|' + '---|'.repeat(13);
  const lines = rows.map(
    (r) =>
      `| ${r.set} | ${r.scorer} | ${r.goldFiles} | ${f3(r.topk4)} | ${f3(r.topk8)} | ${f3(r.prune4)} | ${f3(r.prune8)} | ${f3(r.prune4Repair)} | ${f3(r.prune8Repair)} | ${f3(r.thrRecall)} / ${f3(r.thrRecallRepair)} | ${f1(r.thrDistractorCompression)} / ${f1(r.thrDistractorCompressionRepair)} | ${f1(r.thrGoldCompression)} | ${f3(r.docAuc)} |`,
  );
  return [head, sep, ...lines].join('\n');
}

export { countTokens };

/**
 * Scoring latency (features + model, syntax excluded) on files of 800-1,200 lines: p50/p95 wall ms
 * and the p50 normalized to 1,000 lines. Each file is scored once to warm up, then timed `reps` times.
 */
export async function scoringLatency(
  scorer: Scorer,
  files: LabeledFile[],
  reps = 5,
): Promise<{ files: number; p50: number; p95: number; p50Per1000: number; cpuP50: number }> {
  const syntax = await loadSyntaxSource();
  const times: number[] = [];
  const cpu: number[] = [];
  const per1000: number[] = [];
  for (const f of files) {
    if (f.lines.length < 800 || f.lines.length > 1200) continue;
    await syntax.prepare(f.lang);
    const syn = syntax.build(f.lines, f.lang);
    const input = { query: f.query, lines: f.lines, syntax: syn, language: f.lang, path: f.path };
    scorer.score(input);
    for (let k = 0; k < reps; k++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      scorer.score({ ...input, query: `${f.query} ` }); // a fresh query string: no cached query analysis
      const dt = performance.now() - t0;
      const c1 = process.cpuUsage(c0);
      cpu.push((c1.user + c1.system) / 1000); // CPU time: robust to other jobs sharing the cores
      times.push(dt);
      per1000.push((dt * 1000) / f.lines.length);
    }
  }
  const q = (a: number[], p: number): number => {
    const s = [...a].sort((x, y) => x - y);
    return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0;
  };
  return { files: times.length / reps, p50: q(times, 0.5), p95: q(times, 0.95), p50Per1000: q(per1000, 0.5), cpuP50: q(cpu, 0.5) };
}
