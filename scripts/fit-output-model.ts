/**
 * Fit the learned judgement of output lines (src/core/output/lineModel.ts) on the training runs of
 * a trajectories file (runs outside the validation split of src/bench/trajectories.ts):
 *   1. replay every output other than a file read in run order (the rules alone, with session
 *      memory, as pruneOutput() sees them), and label each plain line the rules would keep by the
 *      bench's used-line rule (the agent's next message names one of its rarer words);
 *   2. fit a logistic model on those lines (L2, full-batch Adam);
 *   3. choose the threshold: the largest whose replay on the training runs loses at most
 *      --max-extra-lost of the outputs with a used line beyond what the rules alone lose.
 *
 *   npx tsx scripts/fit-output-model.ts [--data ../shared/bench/trajectories-dev.jsonl.gz] [--out src/core/output/lineModel.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readJsonRecords } from '../src/bench/cases.js';
import { usedLines } from '../src/bench/outputSteps.js';
import { isTrajectoryRecord, isValidationRun, splitObservation, type TrajectoryRun } from '../src/bench/trajectories.js';
import { planFolds } from '../src/core/output/fold.js';
import { LINE_FEATURES, lineFeatures } from '../src/core/output/lineFeatures.js';
import type { LineModel } from '../src/core/output/lineModel.js';
import { splitOutput } from '../src/core/output/lines.js';
import { OutputMemory } from '../src/core/output/memory.js';
import { analyseOutput, pruneOutput, seenBefore } from '../src/core/output/pruneOutput.js';
import { fileReadOf } from '../src/core/output/readCommand.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/bench/trajectories-dev.jsonl.gz' },
    out: { type: 'string', default: 'src/core/output/lineModel.json' },
    'max-extra-lost': { type: 'string', default: '0.0025' },
    l2: { type: 'string', default: '0.001' },
  },
});

interface OutputStep {
  text: string;
  command: string;
  query: string;
  task: string;
  used: Set<number>;
  /** Each line's text, to tell a used line the context already holds. */
  run: number;
}

const runs: TrajectoryRun[] = [];
for await (const { rec } of readJsonRecords(args.data!)) if (isTrajectoryRecord(rec)) runs.push(rec as unknown as TrajectoryRun);
const training = runs.filter((r) => !isValidationRun(r.instance_id));
console.log(`${training.length} training runs of ${runs.length}`);

/** The outputs of each training run, in order (not cut, not a read). */
const stepsByRun: OutputStep[][] = training.map((run, k) =>
  run.steps
    .filter((s) => !s.read && !s.truncated && !fileReadOf(s.command ?? ''))
    .flatMap((s) => {
      const obs = splitObservation(run.messages[s.message].content);
      if (!obs) return [];
      const next = run.messages[s.message + 1]?.role === 'assistant' ? run.messages[s.message + 1].content : '';
      return [{ text: obs.body, command: s.command ?? '', query: s.thought, task: run.task, used: new Set(usedLines(obs.body, next, s.command)), run: k }];
    }),
);

// 1. Examples: the plain lines the rules keep.
const F = LINE_FEATURES.length;
const xs: number[] = [];
const ys: number[] = [];
for (const steps of stepsByRun) {
  const memory = new OutputMemory();
  for (const s of steps) {
    const { lines } = splitOutput(s.text);
    const seen = seenBefore(lines, memory, s.command);
    if (lines.length >= 20 || seen) {
      const a = analyseOutput(lines, s, seen);
      const folds = planFolds({ ...a, unlikely: null });
      const folded = new Uint8Array(lines.length);
      for (const f of folds) folded.fill(1, f.from - 1, f.to);
      const x = lineFeatures({ lines, roles: a.roles, relevant: a.relevant, query: a.query, task: a.task, kind: a.shape.main.kind });
      for (let i = 0; i < lines.length; i++) {
        if (folded[i] || a.roles[i] !== 'plain' || a.relevant[i] || seen?.[i]) continue;
        for (let f = 0; f < F; f++) xs.push(x[i * F + f]);
        ys.push(s.used.has(i + 1) ? 1 : 0);
      }
    }
    pruneOutput({ text: s.text, command: s.command, query: s.query, task: s.task, memory, judge: false });
  }
}
const n = ys.length;
console.log(`${n} candidate lines, ${ys.filter((y) => y).length} used`);

// 2. Logistic regression, full-batch Adam.
const w = new Float64Array(F);
const m1 = new Float64Array(F);
const m2 = new Float64Array(F);
const l2 = Number(args.l2);
for (let step = 1; step <= 600; step++) {
  const g = new Float64Array(F);
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let f = 0; f < F; f++) z += w[f] * xs[i * F + f];
    const err = 1 / (1 + Math.exp(-z)) - ys[i];
    for (let f = 0; f < F; f++) g[f] += (err * xs[i * F + f]) / n;
  }
  for (let f = 1; f < F; f++) g[f] += l2 * w[f];
  for (let f = 0; f < F; f++) {
    m1[f] = 0.9 * m1[f] + 0.1 * g[f];
    m2[f] = 0.999 * m2[f] + 0.001 * g[f] * g[f];
    w[f] -= (0.05 * (m1[f] / (1 - 0.9 ** step))) / (Math.sqrt(m2[f] / (1 - 0.999 ** step)) + 1e-8);
  }
}
console.log(Object.fromEntries(LINE_FEATURES.map((f, i) => [f, Number(w[i].toFixed(3))])));

// 3. The threshold: replay the training runs' outputs with the model at each threshold.
function replay(judge: false | LineModel): { lost: number; usedOutputs: number; saved: number; chars: number } {
  const r = { lost: 0, usedOutputs: 0, saved: 0, chars: 0 };
  for (const steps of stepsByRun) {
    const memory = new OutputMemory();
    const shown = new Set<string>();
    for (const s of steps) {
      const out = pruneOutput({ text: s.text, command: s.command, query: s.query, task: s.task, memory, judge });
      const lines = s.text.split('\n');
      if (s.used.size > 0) r.usedOutputs++;
      if ([...s.used].some((k) => !out.keepMask[k - 1] && !shown.has(lines[k - 1]))) r.lost++;
      for (const l of lines) shown.add(l);
      r.saved += s.text.length - out.text.length;
      r.chars += s.text.length;
    }
  }
  return r;
}
const rules = replay(false);
console.log(`rules alone: saved ${((100 * rules.saved) / rules.chars).toFixed(1)}%, lost ${rules.lost} of ${rules.usedOutputs}`);
const weights = Array.from(w, (v) => Number(v.toFixed(5)));
let chosen = 0;
for (const threshold of [0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1]) {
  const r = replay({ features: [...LINE_FEATURES], weights, threshold });
  const extra = (r.lost - rules.lost) / rules.usedOutputs;
  console.log(`τ ${threshold}: saved ${((100 * r.saved) / r.chars).toFixed(1)}%, lost ${r.lost} (+${(100 * extra).toFixed(2)}% of outputs with a used line)`);
  if (extra <= Number(args['max-extra-lost'])) chosen = threshold;
}
const model: LineModel = { features: [...LINE_FEATURES], weights, threshold: chosen };
writeFileSync(args.out!, `${JSON.stringify(model, null, 2)}\n`);
console.log(`threshold ${chosen} -> ${args.out}`);
