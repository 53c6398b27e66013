/**
 * `skim train`: train the learned skimmer on commit samples and teacher-labelled queries.
 * Progress bars go to stderr (TTY only); the log lines go to stderr too; stdout gets a JSON summary path.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { existsSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { SkimError } from '../../core/errors.js';
import { runTraining } from '../../train/pipeline.js';

interface TrainOptions {
  data: string[];
  out: string;
  init?: string;
  epochs?: number;
  maxSamples?: number;
  seed?: number;
  mode: 'lamr' | 'single';
  hidden?: number;
  targetRecall?: number;
}

const int = (name: string, min: number) => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}`);
  return n;
};

export function makeProgress(label: string, total: number): { update: (d: number, extra?: string) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `${label.padEnd(14)} [{bar}] {value}/{total} {eta_formatted} {extra}`, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { extra: '' });
  return { update: (d, extra) => bar.update(d, { extra: extra ?? '' }), stop: () => bar.stop() };
}

export function registerTrain(program: Command): void {
  program
    .command('train')
    .description('train the learned skimmer (LaMR-style CRF model) and write weights to --out')
    .requiredOption('--data <file>', 'training data (.jsonl or .jsonl.gz: commit samples or teacher cases); repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .requiredOption('--out <dir>', 'model directory to write (model.json, bridge.json, train-report.json)')
    .option('--init <dir>', 'start from the weights of this model directory')
    .option('--epochs <n>', 'training epochs', int('--epochs', 1))
    .option('--max-samples <n>', 'cap on filtered commit samples used for training (default 3000)', int('--max-samples', 1))
    .option('--seed <n>', 'random seed', int('--seed', 0))
    .option('--mode <mode>', 'lamr (two rubrics + gate + fused CRF) or single (one CRF on the aggregate label)', 'lamr')
    .option('--hidden <n>', 'hidden units of the shared MLP', int('--hidden', 2))
    .option('--target-recall <r>', 'recall target for threshold calibration (default 0.9)', parseFloat)
    .action(async (opts: TrainOptions) => {
      for (const d of opts.data) if (!existsSync(d)) throw new SkimError(`data file not found: ${d}`, 'ENOINPUT');
      if (opts.mode !== 'lamr' && opts.mode !== 'single') throw new SkimError('--mode must be lamr or single', 'EUSAGE');
      if (opts.init && !existsSync(opts.init)) throw new SkimError(`--init directory not found: ${opts.init}`, 'ENOINPUT');
      const summary = await runTraining({
        ...opts,
        log: (m) => process.stderr.write(`${m}\n`),
        progress: makeProgress,
      });
      process.stdout.write(`${JSON.stringify({ out: opts.out, bestEpoch: summary.bestEpoch, threshold: summary.threshold, seconds: summary.seconds })}\n`);
    });
}
