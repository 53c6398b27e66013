/**
 * `skim adapt --repo PATH`: mine the repository's history, fine-tune the shipped model on its train
 * commits, compare both models on its held-back (val) commits, and keep the new weights only when
 * they recall more of the changed lines at 4x and 8x (mean of the two).
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import type { Comparison } from '../../data/adapt.js';
import { action, cliLog, intAtLeast, numberOption, writeOut } from '../io.js';
import { assertOutDir, progressBar } from './dataAction.js';

interface AdaptFlags {
  repo: string;
  out: string;
  init?: string;
  fromScratch?: boolean;
  since?: string;
  max?: number;
  epochs?: number;
  maxTrain: number;
  minVal: number;
  bridge: 'init' | 'refit' | 'merge';
  keepData?: string;
  force?: boolean;
}

export function registerAdapt(program: Command): void {
  program
    .command('adapt')
    .description("fine-tune the model on a repository's own history; keep it only if it beats the shipped model on held-back commits")
    .requiredOption('--repo <path>', 'git work tree to learn from')
    .option('--out <dir>', 'where to write the adapted model', 'models/adapted')
    .option('--init <dir>', 'model to start from and compare against (default: the shipped models/default)')
    .option('--from-scratch', 'train a new model instead (compared against the heuristic scorer)')
    .option('--since <date>', 'only mine commits after this date')
    .option('--max <n>', 'mine at most n commits', numberOption(intAtLeast(1)))
    .option('--epochs <n>', 'fine-tuning epochs (default 4; 8 from scratch)', numberOption(intAtLeast(1)))
    .option('--max-train <n>', 'cap on training samples', numberOption(intAtLeast(1)), 5000)
    .option('--min-val <n>', 'refuse to judge with fewer held-back samples than this', numberOption(intAtLeast(1)), 10)
    .option(
      '--bridge <mode>',
      "init: keep the init model's query->code bridge; merge: extend it with this repository's commits; refit: fit it on this repository only",
      'init',
    )
    .option('--keep-data <file>', 'also keep the mined samples in this .jsonl file')
    .option('--force', 'write the adapted model even when it is not better')
    .action(
      action(async (flags: AdaptFlags) => {
        if (!existsSync(flags.repo) || !statSync(flags.repo).isDirectory()) throw new SkimError(`no such directory: ${flags.repo}`, 'ENOINPUT');
        if (!['init', 'merge', 'refit'].includes(flags.bridge)) throw new SkimError('--bridge must be init, merge or refit', 'EUSAGE');
        const [
          { defaultModelDir },
          { modelExists },
          { baseScorer, compareOnVal, fineTune, readRepoSamples, writeReport },
          { formatMineStats, mineRepository },
        ] = await Promise.all([
          import('../../core/model/index.js'),
          import('../../core/model/io.js'),
          import('../../data/adapt.js'),
          import('../../data/mine.js'),
        ]);
        const init = flags.fromScratch ? undefined : (flags.init ?? defaultModelDir() ?? undefined);
        if (!flags.fromScratch) {
          if (!init || !modelExists(init))
            throw new SkimError(
              `no model to start from${init ? ` in ${init}` : ' (models/default is not installed)'}: pass --init DIR or --from-scratch`,
              'ENOINPUT',
            );
          if (resolve(init) === resolve(flags.out)) throw new SkimError('--out must differ from the model it starts from', 'EUSAGE');
        }
        if (flags.keepData) assertOutDir(flags.keepData);
        const log = (m: string) => cliLog().info(m);
        const tmp = mkdtempSync(join(tmpdir(), 'skim-adapt-'));
        try {
          const dataFile = flags.keepData ?? join(tmp, 'mined.jsonl');
          const bar = progressBar('mine');
          const mined = await mineRepository({
            repo: flags.repo,
            out: dataFile,
            since: flags.since,
            max: flags.max,
            onStart: (t) => bar.start(t),
            onCommit: (d, s) => bar.update(d, `${s} samples`),
          }).finally(() => bar.stop());
          log(formatMineStats(mined));
          const samples = await readRepoSamples(dataFile);
          log(
            `after the training filter: ${samples.train.length} train, ${samples.val.length} val samples (dropped: ${
              Object.entries(samples.filter)
                .filter(([k, v]) => k !== 'total' && k !== 'kept' && v > 0)
                .map(([k, v]) => `${k} ${v}`)
                .join(', ') || 'none'
            })`,
          );
          const valFiles = samples.val.filter((f) => f.agg.length > 0);
          if (samples.train.length < 20)
            throw new SkimError(`only ${samples.train.length} usable training samples in this history: nothing to adapt to (mine more commits)`, 'ENOINPUT');
          if (valFiles.length < flags.minVal)
            throw new SkimError(
              `only ${valFiles.length} held-back samples (need --min-val ${flags.minVal}) to judge the adapted model: mine more history or lower --min-val`,
              'ENOINPUT',
            );
          const candidate = join(tmp, 'model');
          const tbar = progressBar('train');
          let started = false;
          const ft = await fineTune({
            train: samples.train,
            init,
            out: candidate,
            epochs: flags.epochs,
            maxTrain: flags.maxTrain,
            bridge: flags.bridge,
            log,
            progress: (d, t) => {
              if (!started) tbar.start(t);
              started = true;
              tbar.update(d);
            },
          }).finally(() => tbar.stop());
          const cmp = await compareOnVal(valFiles, baseScorer(init), candidate);
          const keep = cmp.better || !!flags.force;
          const table = comparisonTable(cmp, mined.repo, flags.out, keep, init);
          if (keep) {
            await installModel(candidate, flags.out);
            writeReport(flags.out, {
              repo: mined.repo,
              mined,
              filter: samples.filter,
              fineTune: ft,
              comparison: { ...cmp, rows: undefined },
              date: new Date().toISOString(),
            });
          }
          await writeOut(table + '\n');
        } finally {
          rmSync(tmp, { recursive: true, force: true });
        }
      }),
    );
}

/** The held-back comparison as the command prints it, with what was done about it. */
function comparisonTable(cmp: Comparison, repo: string, out: string, keep: boolean, init: string | undefined): string {
  const f3 = (x: number) => x.toFixed(3);
  return [
    `held-back commits of ${repo}: ${cmp.files} files, ${cmp.labelled} changed lines (recall of gold ∪ anchor lines under a character budget)`,
    `  ${cmp.before.name.padEnd(9)} R@4x ${f3(cmp.before.r4)}  R@8x ${f3(cmp.before.r8)}`,
    `  adapted   R@4x ${f3(cmp.after.r4)}  R@8x ${f3(cmp.after.r8)}`,
    cmp.better
      ? `adapted model is better: written to ${out}`
      : keep
        ? `adapted model is NOT better; written to ${out} anyway (--force)`
        : `adapted model is not better: kept ${init ?? 'the heuristic scorer'}, nothing written`,
  ].join('\n');
}

/** Put the model written at `candidate` at `out`, replacing what was there. */
async function installModel(candidate: string, out: string): Promise<void> {
  if (existsSync(out)) rmSync(out, { recursive: true, force: true });
  mkdirSync(dirname(resolve(out)), { recursive: true });
  try {
    renameSync(candidate, out);
  } catch {
    // another filesystem: copy through saveModel's files
    const { cpSync } = await import('node:fs');
    cpSync(candidate, out, { recursive: true });
  }
}
