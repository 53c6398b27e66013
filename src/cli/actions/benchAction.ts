/**
 * `skim bench`: run skim and the baselines over benchmark case files and report recall,
 * compression, validity and latency (see src/bench/). Progress goes to stderr (TTY only); the
 * markdown tables go to stdout unless --md names a file.
 */
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Command, Option } from 'commander';
import { METHOD_NAMES } from '../../bench/methods/names.js';
import { parseBudget } from '../../bench/methods/types.js';
import type { BenchOptions } from '../../bench/runner.js';
import { SkimError } from '../../core/errors.js';
import { cliIO, cliLog, intAtLeast, numberOption } from '../io.js';
import { loadCliProgress } from './progress.js';

interface BenchCliOptions {
  cases: string[];
  methods: string;
  budgets: string;
  limit?: number;
  json?: string;
  md?: string;
  plot?: string;
  records?: string;
}

async function writeOut(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

function progressBar(): BenchOptions['progress'] {
  if (!cliIO().stderr.isTTY) return undefined;
  const cliProgress = loadCliProgress();
  const bar = new cliProgress.SingleBar(
    {
      stream: cliIO().stderr as NodeJS.WriteStream,
      format: 'bench [{bar}] {value}/{total} cases | {eta_formatted} left | {case}',
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    start: (total) => bar.start(total, 0, { case: '' }),
    tick: (label) => bar.increment(1, { case: label.slice(0, 40) }),
    stop: () => bar.stop(),
  };
}

export async function benchAction(o: BenchCliOptions): Promise<void> {
  if (!o.cases?.length) throw new SkimError('give at least one --cases FILE (.jsonl or .jsonl.gz)', 'EUSAGE');
  for (const f of o.cases) if (!existsSync(f)) throw new SkimError(`case file not found: ${f}`, 'ENOINPUT');
  // Whole agent runs are replayed, not scored file by file: they have their own methods and report.
  const { isTrajectoryFile } = await import('../../bench/trajectoryBench.js');
  const kinds = await Promise.all(o.cases.map((f) => isTrajectoryFile(f)));
  if (kinds.some(Boolean)) {
    if (!kinds.every(Boolean)) throw new SkimError('give trajectory case files and per-file case files in separate runs', 'EUSAGE');
    return trajectoryBench(o);
  }
  // Loaded on use: the methods pull in repomix and vega, which other sub-commands do not need.
  const [{ resolveMethods }, { runBench }, { toMarkdown }, { renderPlotSvg }] = await Promise.all([
    import('../../bench/methods/index.js'),
    import('../../bench/runner.js'),
    import('../../bench/report.js'),
    import('../../bench/plot.js'), // light: vega itself loads only for --plot
  ]);
  let methods, budgets;
  try {
    methods = resolveMethods(o.methods);
    budgets = o.budgets
      .split(',')
      .filter((s) => s.trim())
      .map(parseBudget);
  } catch (e) {
    throw new SkimError((e as Error).message, 'EUSAGE');
  }
  if (budgets.length === 0) throw new SkimError('give at least one budget, e.g. --budgets adaptive,4,8', 'EUSAGE');
  const records = await openRecords(o.records);
  const report = await runBench({
    cases: o.cases,
    methods,
    budgets,
    limit: o.limit,
    progress: progressBar(),
    onError: (msg) => cliLog().warn(`warning: ${msg}`),
    onRecord: records?.write,
  });
  await records?.close();
  const md = toMarkdown(report);
  if (o.json) await writeOut(o.json, JSON.stringify(report, null, 2) + '\n');
  if (o.md) await writeOut(o.md, md);
  else cliIO().stdout.write(md);
  if (o.plot) await writeOut(o.plot, await renderPlotSvg(report.results));
}

/** --records: one JSON line per measurement, or nothing without the option. */
async function openRecords(path: string | undefined): Promise<{ write: (r: object) => void; close: () => Promise<void> } | undefined> {
  if (!path) return undefined;
  await mkdir(dirname(path), { recursive: true });
  const out: WriteStream = createWriteStream(path);
  return {
    write: (r) => void out.write(JSON.stringify(r) + '\n'),
    close: () => new Promise<void>((resolve) => out.end(resolve)),
  };
}

async function trajectoryBench(o: BenchCliOptions): Promise<void> {
  const [{ resolveTrajectoryMethods }, { runTrajectoryBench, trajectoryMarkdown }, { createPruner }] = await Promise.all([
    import('../../bench/trajectories.js'),
    import('../../bench/trajectoryBench.js'),
    import('../../core/prune.js'),
  ]);
  let methods;
  try {
    methods = resolveTrajectoryMethods(o.methods);
  } catch (e) {
    throw new SkimError((e as Error).message, 'EUSAGE');
  }
  const records = await openRecords(o.records);
  const pruner = createPruner();
  let md = '';
  const reports = [];
  for (const file of o.cases) {
    const report = await runTrajectoryBench({
      file,
      methods,
      prune: (req) => pruner.prune(req),
      limit: o.limit,
      progress: progressBar(),
      onRead: records?.write,
    });
    reports.push(report);
    md += trajectoryMarkdown(report);
  }
  await records?.close();
  if (o.json) await writeOut(o.json, JSON.stringify(reports, null, 2) + '\n');
  if (o.md) await writeOut(o.md, md);
  else cliIO().stdout.write(md);
  if (o.plot) {
    const { renderTrajectoryPlotSvg } = await import('../../bench/plot.js');
    await writeOut(o.plot, await renderTrajectoryPlotSvg(reports));
  }
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('benchmark skim and baselines on labelled cases: recall, compression, validity, latency')
    .requiredOption('--cases <file>', 'case file (.jsonl or .jsonl.gz); repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .addOption(
      new Option(
        '--methods <list>',
        `comma-separated methods, or "all" (${METHOD_NAMES.join(', ')}); skim@<τ> runs skim's adaptive mode at threshold τ`,
      ).default('all'),
    )
    .option('--budgets <list>', 'comma-separated budgets: adaptive and/or ratios (4 = output <= input/4 tokens)', 'adaptive,4,8')
    .option('--limit <n>', 'at most N cases per file', numberOption(intAtLeast(1)))
    .option('--json <out>', 'write the full report as JSON')
    .option('--md <out>', 'write the markdown tables here instead of stdout')
    .option('--plot <out.svg>', 'write recall vs compression as SVG (vega-lite)')
    .option('--records <out.jsonl>', 'write one JSON line per file, method and budget (to find failing files)')
    .action((opts: BenchCliOptions) => benchAction(opts));
}
