/**
 * What fitting to the harness's limit does for the agent, on the agent runs' outputs. The runs'
 * harness cut outputs of 10,000 characters or more, and the data holds only what it showed of
 * those; so this puts a smaller limit on the outputs it did not cut and compares, for each output
 * whose pruned text is still over it, the lines the agent used next (the bench README's rule) that
 * the agent would see:
 *   - cut: skim prunes as without a limit (fitChars 0), the harness cuts the result to its head and tail;
 *   - fit: skim prunes with SKIM_OUTPUT_LIMIT set: a whole-file read is fitted to what the harness
 *     shows whole; windows (`sed -n`), grep output and other commands' outputs are not fitted (the
 *     harness's head and tail showed more of their used lines than fitting did), so they match.
 * The fix lines of the whole files the runs' harness did cut are `skim bench`'s whole-file rescue.
 * Outputs are pruned in run order, in the run's session, with the step's thought and the task, as
 * `skim bench` does; reads (`cat F`, `sed -n`) go through the code pipeline, other outputs through
 * the output pipeline.
 *
 *   npx tsx scripts/fit-limit.ts [--limit head+tail:3000] [--cases ../shared/bench/trajectories-dev.jsonl.gz] [--all]
 *
 * Default: the validation runs; --all: every run.
 */
import { parseArgs } from 'node:util';
import { readJsonRecords } from '../src/bench/cases.js';
import { usedLines } from '../src/bench/outputSteps.js';
import { isTrajectoryRecord, isValidationRun, splitObservation, type TrajectoryRun } from '../src/bench/trajectories.js';
import { parseOutputLimit, visibleSpans } from '../src/core/outputLimit.js';
import { pruneToolOutput } from '../src/core/pruneToolOutput.js';
import { SessionMemory } from '../src/core/session/memory.js';

const { values: args } = parseArgs({
  options: {
    limit: { type: 'string', default: 'head+tail:3000' },
    cases: { type: 'string', default: '../shared/bench/trajectories-dev.jsonl.gz' },
    all: { type: 'boolean', default: false },
  },
});
const limit = parseOutputLimit(args.limit!);
if (!limit) throw new Error(`--limit: not a limit: ${args.limit}`);

interface Tally {
  outputs: number;
  used: number;
  seen: number;
  whole: number;
  chars: number;
}
const tally = (): Tally => ({ outputs: 0, used: 0, seen: 0, whole: 0, chars: 0 });
const by = { cut: { read: tally(), window: tally(), output: tally() }, fit: { read: tally(), window: tally(), output: tally() } };

/** The lines of `text` the harness shows whole under the limit. */
function visibleLineTexts(text: string): Set<string> {
  const shown = new Set<string>();
  const spans = visibleSpans(text.length, limit!);
  let pos = 0;
  for (const line of text.split('\n')) {
    const end = pos + line.length;
    if (spans.some(([s, e]) => pos >= s && end <= e)) shown.add(line);
    pos = end + 1;
  }
  return shown;
}

for await (const { rec } of readJsonRecords(args.cases!)) {
  if (!isTrajectoryRecord(rec)) continue;
  const run = rec as unknown as TrajectoryRun;
  if (!args.all && !isValidationRun(run.instance_id)) continue;
  const sessions = { cut: new SessionMemory(), fit: new SessionMemory() };
  for (const step of run.steps) {
    if (step.truncated) continue;
    const obs = splitObservation(run.messages[step.message].content);
    if (!obs) continue;
    const next = run.messages[step.message + 1]?.role === 'assistant' ? run.messages[step.message + 1].content : '';
    const used = usedLines(obs.body, next, step.command);
    const lines = obs.body.split('\n');
    const answers = [];
    for (const variant of ['cut', 'fit'] as const)
      answers.push(
        await pruneToolOutput({
          text: obs.body,
          command: step.command ?? undefined,
          query: step.thought,
          task: run.task,
          session: sessions[variant],
          outputLimit: args.limit,
          fitChars: variant === 'cut' ? 0 : undefined,
        }),
      );
    // only outputs the harness would cut without fitting
    if (answers[0].result.text.length < limit.chars) continue;
    for (const [v, routed] of answers.entries()) {
      const text = routed.result.text;
      const kind = routed.via === 'read' ? (routed.read.range ? 'window' : 'read') : 'output';
      const t = by[v === 0 ? 'cut' : 'fit'][kind];
      const shown = visibleLineTexts(text);
      const keep = routed.result.keepMask;
      t.outputs++;
      t.chars += Math.min(text.length, limit.chars);
      if (text.length < limit.chars) t.whole++;
      for (const k of used) {
        t.used++;
        if (keep[k - 1] && shown.has(lines[k - 1])) t.seen++;
      }
    }
  }
}

console.log(`limit ${args.limit} (${args.all ? 'all' : 'validation'} runs): outputs whose pruned text is over it\n`);
console.log('| | kind | outputs | shown whole | used lines | used lines the agent sees | share | characters shown |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const variant of ['cut', 'fit'] as const)
  for (const kind of ['read', 'window', 'output'] as const) {
    const t = by[variant][kind];
    const share = t.used ? `${((100 * t.seen) / t.used).toFixed(1)}%` : '-';
    console.log(`| ${variant === 'cut' ? 'harness cut' : 'skim fit'} | ${kind} | ${t.outputs} | ${t.whole} | ${t.used} | ${t.seen} | ${share} | ${t.chars} |`);
  }
