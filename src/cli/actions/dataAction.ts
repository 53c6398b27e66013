/**
 * `skim data mine` (a repository's git history -> commit samples) and `skim data synth` (teacher
 * LLM labels over a code corpus). Summaries go to stderr; stdout gets one JSON line of counts.
 */
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { SkimError } from '../../core/errors.js';
import { formatMineStats, mineRepository } from '../../data/mine.js';
import { action, writeOut } from '../io.js';

const positiveInt = (name: string) => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be an integer >= 1`);
  return n;
};

/** A progress bar on stderr when it is a terminal; a no-op otherwise (logs and pipes stay clean). */
export function progressBar(label: string): { start: (total: number) => void; update: (done: number, extra?: string) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { start: () => {}, update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `${label.padEnd(8)} [{bar}] {value}/{total} {eta_formatted} {extra}`, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    start: (total) => {
      bar.start(Math.max(1, total), 0, { extra: '' });
      started = true;
    },
    update: (d, extra) => started && bar.update(d, { extra: extra ?? '' }),
    stop: () => started && bar.stop(),
  };
}

interface MineFlags {
  repo: string;
  out: string;
  since?: string;
  max?: number;
  window: number;
  rev?: string;
  name?: string;
  maxFileChange?: number;
}

export function registerData(program: Command): void {
  const data = program.command('data').description('build training data: mine git history, or label code with a teacher LLM');
  data
    .command('mine')
    .description('mine a repository\'s git history into commit samples (the format of commits.jsonl.gz)')
    .requiredOption('--repo <path>', 'git work tree to mine')
    .requiredOption('--out <file>', 'output .jsonl file')
    .option('--since <date>', 'only commits after this date (anything `git log --since` accepts)')
    .option('--max <n>', 'walk at most n commits (newest first)', positiveInt('--max'))
    .option('--window <n>', 'lines of the file kept around the changes', positiveInt('--window'), 300)
    .option('--rev <rev>', 'revision to walk back from', 'HEAD')
    .option('--name <owner/name>', 'value of the "repo" field (default: from the origin remote)')
    .option('--max-file-change <n>', 'drop files with more changed lines than this as huge diffs', positiveInt('--max-file-change'))
    .action(action(async (flags: MineFlags) => {
      if (!existsSync(flags.repo) || !statSync(flags.repo).isDirectory()) throw new SkimError(`no such directory: ${flags.repo}`, 'ENOINPUT');
      const bar = progressBar('mine');
      const stats = await mineRepository({
        ...flags,
        onStart: (total) => bar.start(total),
        onCommit: (done, samples) => bar.update(done, `${samples} samples`),
      }).finally(() => bar.stop());
      process.stderr.write(formatMineStats(stats) + '\n');
      await writeOut(JSON.stringify({ out: flags.out, ...stats }) + '\n');
    }));
}
