/**
 * `skim data mine` (a repository's git history -> commit samples) and `skim data synth` (teacher
 * LLM labels over a code corpus). Summaries go to stderr; stdout gets one JSON line of counts.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { action, cliIO, cliLog, intAtLeast, MAX_TIMER_MS, numberIn, numberOption, writeOut } from '../io.js';
import { loadCliProgress } from './progress.js';

/** The output file's directory must exist (one clear message instead of a stream error later). */
export function assertOutDir(file: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new SkimError(`no such directory for the output: ${dir}`, 'ENOINPUT');
}

/** A progress bar on stderr when it is a terminal; a no-op otherwise (logs and pipes stay clean). */
export function progressBar(label: string): { start: (total: number) => void; update: (done: number, extra?: string) => void; stop: () => void } {
  if (!cliIO().stderr.isTTY) return { start: () => {}, update: () => {}, stop: () => {} };
  const cliProgress = loadCliProgress();
  const bar = new cliProgress.SingleBar(
    {
      stream: cliIO().stderr as NodeJS.WriteStream,
      format: `${label.padEnd(8)} [{bar}] {value}/{total} {eta_formatted} {extra}`,
      hideCursor: true,
      clearOnComplete: true,
    },
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

interface SynthFlags {
  corpus: string;
  endpoint: string;
  model: string;
  judgeModel?: string;
  minScore: number;
  concurrency: number;
  maxChunks?: number;
  out: string;
  repo?: string;
  timeout: number;
  retries: number;
  priceIn?: number;
  priceOut?: number;
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
    .description("mine a repository's git history into commit samples (the format of commits.jsonl.gz)")
    .requiredOption('--repo <path>', 'git work tree to mine')
    .requiredOption('--out <file>', 'output .jsonl file')
    .option('--since <date>', 'only commits after this date (anything `git log --since` accepts)')
    .option('--max <n>', 'walk at most n commits (newest first)', numberOption(intAtLeast(1)))
    .option('--window <n>', 'lines of the file kept around the changes', numberOption(intAtLeast(1)), 300)
    .option('--rev <rev>', 'revision to walk back from', 'HEAD')
    .option('--name <owner/name>', 'value of the "repo" field (default: from the origin remote)')
    .option('--max-file-change <n>', 'drop files with more changed lines than this as huge diffs', numberOption(intAtLeast(1)))
    .action(
      action(async (flags: MineFlags) => {
        if (!existsSync(flags.repo) || !statSync(flags.repo).isDirectory()) throw new SkimError(`no such directory: ${flags.repo}`, 'ENOINPUT');
        assertOutDir(flags.out);
        const { formatMineStats, mineRepository } = await import('../../data/mine.js');
        const bar = progressBar('mine');
        const stats = await mineRepository({
          ...flags,
          onStart: (total) => bar.start(total),
          onCommit: (done, samples) => bar.update(done, `${samples} samples`),
        }).finally(() => bar.stop());
        cliLog().info(formatMineStats(stats));
        await writeOut(JSON.stringify({ out: flags.out, ...stats }) + '\n');
      }),
    );

  data
    .command('synth')
    .description('label code chunks with a teacher LLM (any OpenAI-compatible endpoint) into teacher-train records')
    .requiredOption('--corpus <dir|file>', 'code to label (a directory is walked; vendored/generated files are skipped)')
    .requiredOption('--endpoint <url>', 'OpenAI-compatible base URL (http://host/v1) or full /v1/chat/completions URL')
    .requiredOption('--model <name>', 'teacher model name')
    .requiredOption('--out <file>', 'output .jsonl (appended; a rerun resumes where it stopped)')
    .option('--judge-model <name>', 'also score each sample 1-5 with this model and drop those under --min-score')
    .option('--min-score <n>', 'judge cutoff', numberOption(numberIn(0)), 3)
    .option('--concurrency <n>', 'requests in flight', numberOption(intAtLeast(1)), 4)
    .option('--max-chunks <n>', 'label at most the first n chunks of the corpus', numberOption(intAtLeast(1)))
    .option('--repo <name>', 'value of the "repo" field (default: the corpus directory name)')
    .option('--timeout <ms>', 'per-request timeout', numberOption(intAtLeast(1, MAX_TIMER_MS)), 60_000)
    .option('--retries <n>', 'retries per request on 429/5xx/timeouts', numberOption(numberIn(0)), 3)
    .option('--price-in <usd>', 'USD per 1M prompt tokens (for the cost estimate)', numberOption(numberIn(0)))
    .option('--price-out <usd>', 'USD per 1M completion tokens', numberOption(numberIn(0)))
    .action(
      action(async (flags: SynthFlags) => {
        if (!existsSync(flags.corpus)) throw new SkimError(`no such file or directory: ${flags.corpus}`, 'ENOINPUT');
        assertOutDir(flags.out);
        try {
          new URL(flags.endpoint);
        } catch {
          throw new SkimError(`--endpoint is not a URL: ${flags.endpoint}`, 'EUSAGE');
        }
        const { formatSynthSummary, runSynth } = await import('../../data/synth/synth.js');
        const apiKey = cliIO().env.SKIM_API_KEY ?? cliIO().env.OPENAI_API_KEY;
        const ctl = new AbortController();
        // Ctrl-C: stop taking chunks, let in-flight ones end, print the summary; a second one kills
        const onSigint = () => {
          if (ctl.signal.aborted) process.exit(130);
          cliLog().info('\nskim: interrupted, finishing; run the same command again to resume'); // (a new line first: the progress bar's is unfinished)
          ctl.abort();
        };
        process.on('SIGINT', onSigint);
        const bar = progressBar('synth');
        try {
          const summary = await runSynth({
            ...flags,
            timeoutMs: flags.timeout,
            apiKey,
            signal: ctl.signal,
            onStart: (total) => bar.start(total),
            onDone: (d, kept) => bar.update(d, `${kept} kept`),
          }).finally(() => bar.stop());
          cliLog().info(formatSynthSummary(summary));
          await writeOut(JSON.stringify({ out: flags.out, ...summary }) + '\n');
          if (summary.interrupted) return 130;
        } finally {
          process.off('SIGINT', onSigint);
        }
      }),
    );
}
