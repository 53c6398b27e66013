/**
 * `skim bench` on whole agent runs: replay every run with each method (src/bench/trajectories.ts),
 * aggregate the figures an agent builder pays for (overall, on the validation split of runs, per
 * repository), measure the whole-file rescue, and render them as markdown.
 */
import type { PruneRequest, PruneResult } from '../core/types.js';
import { readJsonRecords } from './cases.js';
import { OUTPUT_KINDS } from './outputSteps.js';
import {
  isTrajectoryRecord,
  isValidationRun,
  type OutputTally,
  type ReadRecord,
  type RunResult,
  replayRun,
  type TrajectoryMethod,
  type TrajectoryRun,
  type TrajectoryStep,
} from './trajectories.js';

export interface TrajectorySummary {
  method: string;
  runs: number;
  /** 1 - cost with the method / cost without, summed over runs. */
  netSaving: number;
  /** 1 - read characters out / in. */
  readSaving: number;
  reads: number;
  goldReads: number;
  lostReads: number;
  lostShare: number;
  /** 1 - bill with a prompt cache with the method / without. */
  cachedSaving: number;
  /** The net saving each kind of output brought (its share of the cost without pruning), reads as 'read'. */
  netByKind: Record<string, number>;
  /** Outputs other than reads, all and by kind: 1 - characters out / in, outputs with a used line, lost ones. */
  outputs: Record<string, { outputs: number; saving: number; usedOutputs: number; lostOutputs: number; lostShare: number }>;
}

export interface RescueSummary {
  files: number;
  fixLines: number;
  cutKept: number;
  cutChars: number;
  /** skim told the harness's limit (SKIM_OUTPUT_LIMIT): the read fitted to what the limit shows whole. */
  skimKept: number;
  skimChars: number;
  /** skim with `--max-chars` of the cut: every file pruned to fill it. */
  budgetKept: number;
  budgetChars: number;
}

export interface TrajectoryReport {
  file: string;
  overall: TrajectorySummary[];
  validation: TrajectorySummary[];
  byRepo: Record<string, TrajectorySummary[]>;
  rescue: RescueSummary | null;
  methods: { name: string; description: string }[];
  wall_s: number;
}

type PruneFn = (req: PruneRequest) => Promise<PruneResult>;

export interface TrajectoryBenchOptions {
  file: string;
  methods: TrajectoryMethod[];
  prune: PruneFn;
  limit?: number;
  onRead?: (r: ReadRecord) => void;
  progress?: { start(total: number): void; tick(label: string): void; stop(): void };
}

/** Is this case file a trajectories file (its first record is a whole run)? */
export async function isTrajectoryFile(file: string): Promise<boolean> {
  for await (const { rec } of readJsonRecords(file)) return isTrajectoryRecord(rec);
  return false;
}

export async function runTrajectoryBench(o: TrajectoryBenchOptions): Promise<TrajectoryReport> {
  const t0 = Date.now();
  const runs: TrajectoryRun[] = [];
  for await (const { rec } of readJsonRecords(o.file)) {
    if (runs.length >= (o.limit ?? Infinity)) break;
    if (isTrajectoryRecord(rec)) runs.push(rec as unknown as TrajectoryRun);
  }
  o.progress?.start(runs.length * o.methods.length);
  const results: RunResult[] = [];
  for (const method of o.methods) {
    for (const run of runs) {
      results.push(await replayRun(run, method, o.prune, o.onRead));
      o.progress?.tick(`${method.name} ${run.instance_id}`);
    }
  }
  o.progress?.stop();
  const names = o.methods.map((m) => m.name);
  const summarizeWhere = (keep: (r: RunResult) => boolean) =>
    names.map((name) =>
      summarizeRuns(
        name,
        results.filter((r) => keep(r) && r.method === name),
        results.filter((r) => keep(r) && r.method === 'none'),
      ),
    );
  const byRepo: Record<string, TrajectorySummary[]> = {};
  for (const repo of [...new Set(runs.map((r) => r.repo))].sort()) byRepo[repo] = summarizeWhere((r) => r.repo === repo);
  return {
    file: o.file,
    overall: summarizeWhere(() => true),
    validation: summarizeWhere((r) => isValidationRun(r.run)),
    byRepo,
    rescue: await wholeFileRescue(runs, o.prune),
    methods: o.methods.map((m) => ({ name: m.name, description: m.description })),
    wall_s: Math.round((Date.now() - t0) / 1000),
  };
}

/**
 * Cost without pruning comes from the replays of "none" when it ran; otherwise each run's own
 * read characters stand in (net saving then needs "none": it is reported as NaN without it).
 */
function summarizeRuns(method: string, rs: RunResult[], baseline: RunResult[]): TrajectorySummary {
  const sum = (f: (r: RunResult) => number, list = rs) => list.reduce((a, r) => a + f(r), 0);
  const base = sum((r) => r.cost, baseline);
  const reads = sum((r) => r.reads);
  const goldReads = sum((r) => r.goldReads);
  const lostReads = sum((r) => r.lostReads);
  const readIn = sum((r) => r.readCharsIn);
  const baseCached = sum((r) => r.cachedCost, baseline);
  const outputs: TrajectorySummary['outputs'] = {};
  for (const kind of ['all', ...OUTPUT_KINDS] as const) {
    const tally = (f: (t: OutputTally) => number) => sum((r) => f(r.outputs[kind]));
    const charsIn = tally((t) => t.charsIn);
    const used = tally((t) => t.usedOutputs);
    const lost = tally((t) => t.lostOutputs);
    outputs[kind] = {
      outputs: tally((t) => t.outputs),
      saving: charsIn > 0 ? 1 - tally((t) => t.charsOut) / charsIn : 0,
      usedOutputs: used,
      lostOutputs: lost,
      lostShare: used > 0 ? lost / used : 0,
    };
  }
  const netByKind: Record<string, number> = {};
  for (const r of rs) for (const [kind, v] of Object.entries(r.costSaved)) netByKind[kind] = (netByKind[kind] ?? 0) + v;
  for (const kind of Object.keys(netByKind)) netByKind[kind] = base > 0 ? netByKind[kind] / base : Number.NaN;
  return {
    netByKind,
    cachedSaving: baseCached > 0 ? 1 - sum((r) => r.cachedCost) / baseCached : Number.NaN,
    outputs,
    method,
    runs: rs.length,
    netSaving: base > 0 ? 1 - sum((r) => r.cost) / base : Number.NaN,
    readSaving: readIn > 0 ? 1 - sum((r) => r.readCharsOut) / readIn : 0,
    reads,
    goldReads,
    lostReads,
    lostShare: goldReads > 0 ? lostReads / goldReads : 0,
  };
}

/** The head and tail of a cut observation, as prefixes/suffixes of the whole output. */
function cutParts(content: string, full: string): { head: string; tail: string } | null {
  const h = /<output_head>\n([\s\S]*?)<\/output_head>/.exec(content)?.[1];
  const t = /<output_tail>\n([\s\S]*?)<\/output_tail>/.exec(content)?.[1];
  if (h === undefined || t === undefined) return null;
  const head = full.startsWith(h) ? h : h.slice(0, -1);
  const tail = full.endsWith(t) ? t : t.slice(0, -1);
  if (!full.startsWith(head) || !full.endsWith(tail)) return null;
  return { head, tail };
}

/** The file path a `cat FILE` command read. */
function catPath(command: string): string {
  return command.trim().split(/\s+/).pop() ?? '';
}

/**
 * Whole files the harness cut to head + tail: fix lines the cut showed against those skim keeps
 * when told the harness's limit (it fits the read to what the limit shows whole), with the step's
 * thought as the query.
 */
async function wholeFileRescue(runs: TrajectoryRun[], prune: PruneFn): Promise<RescueSummary | null> {
  const s: RescueSummary = { files: 0, fixLines: 0, cutKept: 0, cutChars: 0, skimKept: 0, skimChars: 0, budgetKept: 0, budgetChars: 0 };
  for (const run of runs) {
    for (const step of run.steps as TrajectoryStep[]) {
      if (!step.full_output || !step.gold_file_lines?.length) continue;
      const full = step.full_output;
      const cut = cutParts(run.messages[step.message].content, full);
      if (!cut) continue;
      const limit = cut.head.length + cut.tail.length;
      const fix = step.gold_file_lines;
      // a line is shown by the cut when it lies wholly inside the head or the tail
      const starts: number[] = [0];
      for (let i = 0; i < full.length; i++) if (full.charCodeAt(i) === 10) starts.push(i + 1);
      const tailFrom = full.length - cut.tail.length;
      const shownByCut = (line: number) => {
        const a = starts[line - 1];
        const b = (starts[line] ?? full.length + 1) - 1; // end of the line's text
        return b <= cut.head.length || a >= tailFrom;
      };
      const read = { code: full, query: step.thought, task: run.task, path: catPath(step.command) };
      // as skim reads it with SKIM_OUTPUT_LIMIT naming this cut, and with --max-chars of it
      const told = await keptBy(prune, { ...read, outputLimit: `head+tail:${limit}` }, fix, limit);
      const budget = await keptBy(prune, { ...read, maxChars: limit }, fix, limit);
      s.files++;
      s.fixLines += fix.length;
      s.cutKept += fix.filter(shownByCut).length;
      s.cutChars += limit;
      s.skimKept += told.kept;
      s.skimChars += told.chars;
      s.budgetKept += budget.kept;
      s.budgetChars += budget.chars;
    }
  }
  return s.files > 0 ? s : null;
}

/** The fix lines a prune keeps, and its characters (a failed prune keeps none, in the cut's characters). */
async function keptBy(prune: PruneFn, req: Parameters<PruneFn>[0], fix: number[], limit: number): Promise<{ kept: number; chars: number }> {
  try {
    const r = await prune(req);
    return { kept: fix.filter((l) => r.keepMask[l - 1] === 1).length, chars: r.text.length };
  } catch {
    return { kept: 0, chars: limit };
  }
}

const pct = (x: number) => (Number.isNaN(x) ? 'n/a' : `${(100 * x).toFixed(1)}%`);

function table(rows: TrajectorySummary[]): string {
  const head =
    '| method | runs | net saving | with a prompt cache | read saving | reads | reads with a fix line | lost | lost share | output saving | outputs lost / with a used line |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  return (
    head +
    rows
      .map((r) => {
        const o = r.outputs.all;
        const outputs = o.outputs > 0 && r.outputs.all.saving !== 0 ? `${pct(o.saving)} | ${o.lostOutputs} / ${o.usedOutputs} (${pct(o.lostShare)})` : '- | -';
        return `| ${r.method} | ${r.runs} | ${pct(r.netSaving)} | ${pct(r.cachedSaving)} | ${pct(r.readSaving)} | ${r.reads} | ${r.goldReads} | ${r.lostReads} | ${pct(r.lostShare)} | ${outputs} |`;
      })
      .join('\n') +
    '\n'
  );
}

/** Outputs other than reads, by kind, for the methods that prune them. */
function outputTable(rows: TrajectorySummary[]): string {
  const pruning = rows.filter((r) => r.outputs.all.saving !== 0);
  if (pruning.length === 0) return '';
  let md =
    '| method | kind | outputs | character saving | net saving of the run | with a used line | lost | lost share |\n|---|---|---:|---:|---:|---:|---:|---:|\n';
  for (const r of pruning) {
    md += `| ${r.method} | read | - | ${pct(r.readSaving)} | ${pct(r.netByKind.read ?? 0)} | - | ${r.lostReads} | ${pct(r.lostShare)} |\n`;
    for (const [kind, o] of Object.entries(r.outputs)) {
      const net = kind === 'all' ? Object.entries(r.netByKind).reduce((a, [k, v]) => (k === 'read' ? a : a + v), 0) : (r.netByKind[kind] ?? 0);
      md += `| ${r.method} | ${kind} | ${o.outputs} | ${pct(o.saving)} | ${pct(net)} | ${o.usedOutputs} | ${o.lostOutputs} | ${pct(o.lostShare)} |\n`;
    }
  }
  return md;
}

export function trajectoryMarkdown(rep: TrajectoryReport): string {
  let md = `## Agent runs: ${rep.file}\n\n`;
  md += `Net saving = 1 - (context tokens processed over the runs with pruning) / (without); a read that lost a fix line is charged a re-read. Wall time ${rep.wall_s} s.\n\n`;
  md += '### All runs\n\n' + table(rep.overall) + '\n';
  md += '### Validation split (runs not used to fit the read policy)\n\n' + table(rep.validation) + '\n';
  const outputs = outputTable(rep.validation);
  if (outputs)
    md +=
      '### Outputs other than reads, validation split\n\nOutputs the harness did not cut; an output is lost when a line the agent used next (README rule) is gone, was not shown earlier and is not kept elsewhere in the same output.\n\n' +
      outputs +
      '\n';
  md += '### Per repository\n\n';
  for (const [repo, rows] of Object.entries(rep.byRepo)) md += `#### ${repo}\n\n${table(rows)}\n`;
  if (rep.rescue) {
    const r = rep.rescue;
    md += '### Whole-file rescue\n\n';
    md += `${r.files} whole files the harness cut to head + tail, ${r.fixLines} fix lines.\n\n`;
    md += '| | fix lines shown | share | characters |\n|---|---:|---:|---:|\n';
    md += `| head + tail cut | ${r.cutKept} | ${pct(r.cutKept / r.fixLines)} | ${r.cutChars} |\n`;
    md += `| skim told the cut (SKIM_OUTPUT_LIMIT) | ${r.skimKept} | ${pct(r.skimKept / r.fixLines)} | ${r.skimChars} |\n`;
    md += `| skim, --max-chars of the cut | ${r.budgetKept} | ${pct(r.budgetKept / r.fixLines)} | ${r.budgetChars} |\n\n`;
  }
  md += 'Methods:\n\n' + rep.methods.map((m) => `- \`${m.name}\`: ${m.description}`).join('\n') + '\n';
  return md;
}
