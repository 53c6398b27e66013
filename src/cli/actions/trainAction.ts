/**
 * `skim train`: train the learned skimmer on commit samples and teacher-labelled queries.
 * Progress bars go to stderr (TTY only); the log lines go to stderr too; stdout gets a JSON summary path.
 */

import { existsSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { DISTRACTOR_WEIGHT } from '../../train/constants.js';
import type { TrainRunOptions } from '../../train/pipeline.js';
import { cliIO, cliLog, intAtLeast, numberIn, numberOption } from '../io.js';
import { loadCliProgress } from './progress.js';

interface EvalOptions {
  model: string[];
  commits?: string;
  swebench?: string;
  goalhint?: string;
  prune?: boolean;
  heuristic: boolean;
  limit?: number;
  json?: string;
  latency?: boolean;
  onlyLatency?: boolean;
}

/** The pipeline's options as commander gives them (log and progress are the action's). */
type TrainOptions = Omit<TrainRunOptions, 'log' | 'progress'> & { mode: 'lamr' | 'single'; contextStage: boolean };

/** Distractor rates and weights: 0 to 8. */
const RATE = numberIn(0, 8);

export function makeProgress(label: string, total: number): { update: (d: number, extra?: string) => void; stop: () => void } {
  if (!cliIO().stderr.isTTY) return { update: () => {}, stop: () => {} };
  const cliProgress = loadCliProgress();
  const bar = new cliProgress.SingleBar(
    {
      stream: cliIO().stderr as NodeJS.WriteStream,
      format: `${label.padEnd(14)} [{bar}] {value}/{total} {eta_formatted} {extra}`,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { extra: '' });
  return { update: (d, extra) => bar.update(d, { extra: extra ?? '' }), stop: () => bar.stop() };
}

export function registerTrain(program: Command): void {
  registerModelEval(program);
  program
    .command('train')
    .description('train the learned skimmer (LaMR-style CRF model) and write weights to --out')
    .requiredOption('--data <file>', 'training data (.jsonl or .jsonl.gz: commit samples or teacher cases); repeatable', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .requiredOption('--out <dir>', 'model directory to write (model.json, weights.bin, bridge.bin, bridge.json, train-report.json)')
    .option('--init <dir>', 'start from the weights of this model directory')
    .option('--epochs <n>', 'training epochs', numberOption(intAtLeast(1)))
    .option('--max-samples <n>', 'cap on filtered commit samples used for training (default 3000)', numberOption(intAtLeast(1)))
    .option('--seed <n>', 'random seed', numberOption(intAtLeast(0)))
    .option('--mode <mode>', 'lamr (two rubrics + gate + fused CRF) or single (one CRF on the aggregate label)', 'lamr')
    .option('--hidden <n>', "hidden units of the shared MLP (default 32, or the --init model's; the shipped model has 48)", numberOption(intAtLeast(2)))
    .option('--context-hidden <n>', 'hidden units of the second (auto-context) stage (default: --hidden)', numberOption(intAtLeast(2)))
    .option(
      '--commit-distractors <rate>',
      'distractor files per commit sample: other files of its repository, same folder first (document label 0; fractions apply to that share of samples; default 0, the shipped model: 1)',
      numberOption(RATE),
    )
    .option(
      '--teacher-distractors <rate>',
      'extra distractor files per teacher query, drawn the same way from the other teacher files of its repository (default 0)',
      numberOption(RATE),
    )
    .option(
      '--teacher-weight <w>',
      'weight of a teacher-labelled file against a commit sample (default 6; the shipped model: 2, its teacher queries outnumber the commit samples)',
      numberOption(numberIn(0)),
    )
    .option('--ablation-out <dir>', 'also train the single-CRF ablation (rubric loss off, gate fixed) on the same features, into this directory')
    .option('--lambda <x>', 'weight of the rubric CRF losses vs the fused loss (default 0.25; LaMR: 0.6)', numberOption(numberIn(0)))
    .option('--rank-weight <x>', 'weight of the listwise ranking loss on the fused emissions (default 0.3; 0 = off)', numberOption(numberIn(0)))
    .option('--target-recall <r>', 'recall target for threshold calibration (default 0.9)', numberOption(numberIn(0, 1)))
    .option(
      '--distractor-weight <w>',
      `cost of a kept distractor character against a kept gold-file character when calibrating (default ${DISTRACTOR_WEIGHT}: unrelated reads outnumber related ones)`,
      numberOption(RATE),
    )
    .option('--no-context-stage', "do not train the second (auto-context) stage over the first stage's marginals")
    .action(async (opts: TrainOptions) => {
      for (const d of opts.data) if (!existsSync(d)) throw new SkimError(`data file not found: ${d}`, 'ENOINPUT');
      if (opts.mode !== 'lamr' && opts.mode !== 'single') throw new SkimError('--mode must be lamr or single', 'EUSAGE');
      if (opts.init && !existsSync(opts.init)) throw new SkimError(`--init directory not found: ${opts.init}`, 'ENOINPUT');
      const { runTraining } = await import('../../train/pipeline.js');
      const summary = await runTraining({
        ...opts,
        log: (m) => cliLog().info(m),
        progress: makeProgress,
      });
      cliIO().stdout.write(`${JSON.stringify({ out: opts.out, bestEpoch: summary.bestEpoch, threshold: summary.threshold, seconds: summary.seconds })}\n`);
    });
}

/** `skim model-eval`: the ablation table (heuristic vs learned models) on val/bench sets. */
export function registerModelEval(program: Command): void {
  program
    .command('model-eval')
    .description('ablation table for scorers: recall of labelled lines at 4x/8x and threshold-mode figures')
    .option('--model <name=dir>', 'a learned model to evaluate (repeatable), e.g. lamr=models/default', (v: string, prev: string[] = []) => [...prev, v])
    .option('--commits <file>', 'commits.jsonl.gz (its val split is used)')
    .option('--swebench <file>', 'swebench-dev.jsonl.gz')
    .option('--goalhint <file>', 'goalhint-dev.jsonl.gz')
    .option('--prune', 'also run the real prune() pipeline (token budgets, with/without repair, threshold mode)')
    .option('--no-heuristic', 'leave the heuristic scorer out')
    .option('--limit <n>', 'only the first n cases of each bench file', numberOption(intAtLeast(1)))
    .option('--json <file>', 'also write the rows as JSON')
    .option('--only-latency', 'only the latency measurement (needs --swebench)')
    .option('--latency', 'also time scoring of 800-1200-line swebench files (features + model, no syntax)')
    .action(async (opts: EvalOptions) => {
      const models = (opts.model ?? []).map((m) => {
        const [name, dir] = m.includes('=') ? m.split('=', 2) : [m, m];
        if (!existsSync(dir)) throw new SkimError(`model directory not found: ${dir}`, 'ENOINPUT');
        return { name, dir };
      });
      for (const f of [opts.commits, opts.swebench, opts.goalhint]) if (f && !existsSync(f)) throw new SkimError(`file not found: ${f}`, 'ENOINPUT');
      const { evaluateSets, formatTable, loadEvalSets, scorersFor, scoringLatency } = await import('../../train/evaluate.js');
      const sets = await loadEvalSets({ commits: opts.commits, swebench: opts.swebench, goalhint: opts.goalhint, limit: opts.limit });
      let bar: ReturnType<typeof makeProgress> | null = null;
      let label = '';
      const rows = opts.onlyLatency
        ? []
        : await evaluateSets(sets, scorersFor(models, opts.heuristic), {
            prune: opts.prune,
            onProgress: (l, d, t) => {
              if (l !== label) {
                bar?.stop();
                bar = makeProgress(l.slice(0, 14), t);
                label = l;
              }
              bar?.update(d);
            },
          });
      (bar as ReturnType<typeof makeProgress> | null)?.stop();
      if (opts.latency || opts.onlyLatency) {
        const sw = sets.find((x) => x.name === 'swebench-dev');
        if (sw) {
          for (const sp of scorersFor(models, opts.heuristic)) {
            const l = await scoringLatency(sp.scorer, sw.files);
            cliIO().stdout.write(
              `latency ${sp.name}: ${l.files} files of 800-1200 lines, p50 ${l.p50.toFixed(2)} ms, p95 ${l.p95.toFixed(2)} ms, p50 per 1000 lines ${l.p50Per1000.toFixed(2)} ms, CPU-time p50 ${l.cpuP50.toFixed(2)} ms\n`,
            );
          }
        }
      }
      if (opts.json) writeFileSync(opts.json, JSON.stringify(rows, null, 1) + '\n');
      if (rows.length) cliIO().stdout.write(formatTable(rows) + '\n');
    });
}
