/**
 * In-process latency of pruneOutput() on real test logs (the five test-run outputs of the agent runs
 * in ../shared/bench/trajectories-dev.jsonl.gz closest to 500 lines, and the nearest joined into one of at least 500 lines) with the step's
 * thought and the run's task, p50/p95 wall and CPU over repeated calls after one warm-up, with and
 * without a session (a session also compares with the previous run and stores the output).
 * --rules: the rules alone, without the learned judgement of plain lines.
 *   npx tsx scripts/latency-outputs.ts [--runs 50] [--cases ../shared/bench/trajectories-dev.jsonl.gz] [--lines 500] [--rules]
 */
import { parseArgs } from 'node:util';
import { readJsonRecords } from '../src/bench/cases.js';
import { outputKindOf } from '../src/bench/outputSteps.js';
import { isTrajectoryRecord, splitObservation, type TrajectoryRun } from '../src/bench/trajectories.js';
import { OutputMemory } from '../src/core/output/memory.js';
import { pruneOutput } from '../src/core/output/pruneOutput.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    cases: { type: 'string', default: '../shared/bench/trajectories-dev.jsonl.gz' },
    lines: { type: 'string', default: '500' },
    rules: { type: 'boolean', default: false },
  },
});
const target = Number(args.lines);
const logs: { text: string; command: string; query: string; task: string; lines: number }[] = [];
for await (const { rec } of readJsonRecords(args.cases!)) {
  if (!isTrajectoryRecord(rec)) continue;
  const run = rec as unknown as TrajectoryRun;
  for (const s of run.steps) {
    if (s.read || s.truncated || outputKindOf(s.command) !== 'test') continue;
    const obs = splitObservation(run.messages[s.message].content);
    if (obs) logs.push({ text: obs.body, command: s.command, query: s.thought, task: run.task, lines: obs.body.split('\n').length });
  }
}
const real = logs.sort((a, b) => Math.abs(a.lines - target) - Math.abs(b.lines - target)).slice(0, 5);
// The runs hold no uncut test log of 500 lines (the harness cut longer ones): the nearest, joined
// until they reach it, stand for one long run of several test modules.
const parts = real.filter((_, i) => real.slice(0, i).reduce((a, l) => a + l.lines, 0) < target);
const joined = { ...real[0], text: parts.map((l) => l.text).join(''), lines: parts.reduce((a, l) => a + l.lines, 0) };
const picked = [...real, joined];
console.log(`test logs of ${picked.map((l) => l.lines).join(', ')} lines; ${args.runs} runs each`);
const pct = (xs: number[], p: number) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
for (const session of [false, true]) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (const log of picked) {
    const times: number[] = [];
    const call = () => pruneOutput({ ...log, memory: session ? new OutputMemory() : undefined, ...(args.rules ? { judge: false as const } : {}) });
    call();
    for (let k = 0; k < Number(args.runs); k++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      call();
      wall.push(performance.now() - t0);
      times.push(wall[wall.length - 1]);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    if (log === joined) console.log(`  the joined log (${log.lines} lines): wall p50 ${pct(times, 50).toFixed(2)} ms`);
  }
  const f = (x: number) => x.toFixed(2);
  console.log(
    `${session ? 'with a session   ' : 'without a session'}: wall p50 ${f(pct(wall, 50))} ms, p95 ${f(pct(wall, 95))} ms; CPU p50 ${f(pct(cpu, 50))} ms`,
  );
}
