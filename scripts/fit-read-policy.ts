/**
 * Fit the read policy (src/core/policy/readPolicy.ts: READ_POLICY) on whole agent runs.
 *
 *   npx tsx scripts/fit-read-policy.ts [--cases ../shared/bench/trajectories-dev.jsonl.gz]
 *     [--outcomes FILE] [--max-lost 0.01]
 *
 * 1. Outcomes: replay every run once per candidate τ scale (x0.25 ... x32), with and without the
 *    run's task, without session memory, recording per read what it kept and whether it lost a
 *    fix line, with the shipped model (models/default). Cached in --outcomes (re-used when the file
 *    exists; about 90 s to make); by default .bench-out/read-policy-outcomes-<model>.jsonl.gz,
 *    named after a hash of the model's files, so a new model never reuses another's outcomes.
 * 2. Per task setting, on the training runs (src/bench/trajectories.ts isValidationRun): a
 *    logistic gate P(the read shows a fix line) over the read's facts as a session sees them
 *    (size, kind, earlier reads of its path, reads so far), then a ladder of probability bands
 *    -> τ scales (or whole). Ladder and band edges are chosen by 5-fold cross-validation over the
 *    training runs (the gate refitted without each fold): the lowest cost of the runs (characters
 *    saved x assistant turns after the read, against a re-read's extra turn and whole output)
 *    whose cross-validated share of fix-line reads lost is at most --max-lost.
 * 3. Print the gates (paste into READ_POLICY) and their figures on the training and validation runs.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createGunzip, createGzip } from 'node:zlib';
import { readJsonRecords } from '../src/bench/cases.js';
import { isTrajectoryRecord, isValidationRun, type ReadRecord, replayRun, TRAJECTORY_METHODS, type TrajectoryRun } from '../src/bench/trajectories.js';
import { defaultModelDir } from '../src/core/model/index.js';
import { FITTED_CHARS, gateFeatures, type ReadFacts, type ReadGate } from '../src/core/policy/readPolicy.js';
import { createPruner } from '../src/core/prune.js';
import { normalizeSessionPath } from '../src/core/session/memory.js';

const SCALES = [0.25, 0.5, 1, 2, 4, 8, 16, 32];
/** Candidate ladders: τ scales from the least to the most likely to show a fix line; above the last band, whole. */
const LADDERS = [
  [32, 4, 1],
  [32, 8, 1],
  [16, 2, 0.5],
  [8, 2, 1],
  [4, 1, 0.5],
];
const EDGES = [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7];

const { values: args } = parseArgs({
  options: {
    cases: { type: 'string', default: '../shared/bench/trajectories-dev.jsonl.gz' },
    outcomes: { type: 'string' },
    'max-lost': { type: 'string', default: '0.01' },
  },
});

interface Outcome extends ReadRecord {
  action: string;
  task: boolean;
}

async function loadRuns(): Promise<TrajectoryRun[]> {
  const runs: TrajectoryRun[] = [];
  for await (const { rec } of readJsonRecords(args.cases!)) if (isTrajectoryRecord(rec)) runs.push(rec as unknown as TrajectoryRun);
  return runs;
}

/** A policy that prunes every read at τ x `scale` (the gate always answers 0). */
const everyReadAt = (scale: number, task: boolean): ReadGate[] => [{ task, bias: -50, weights: [0, 0, 0, 0, 0], ladder: [{ below: 1, tauScale: scale }] }];

async function computeOutcomes(runs: TrajectoryRun[]): Promise<Outcome[]> {
  // without memory, the thought as the query, with or without the task
  const withTask = { ...TRAJECTORY_METHODS.find((m) => m.name === 'policy-only')!, session: false as const };
  const noTask = { ...TRAJECTORY_METHODS.find((m) => m.name === 'skim-no-task')!, session: false as const };
  const out: Outcome[] = [];
  for (const task of [false, true]) {
    for (const s of SCALES) {
      const pruner = createPruner({ readPolicy: everyReadAt(s, task) });
      const t0 = Date.now();
      for (const run of runs)
        await replayRun(
          run,
          task ? withTask : noTask,
          (req) => pruner.prune(req),
          (r) => out.push({ ...r, action: String(s), task }),
        );
      process.stderr.write(`task ${task} scale ${s}: ${Math.round((Date.now() - t0) / 1000)} s\n`);
    }
  }
  return out;
}

async function readOutcomes(file: string): Promise<Outcome[]> {
  const rl = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  const out: Outcome[] = [];
  for await (const line of rl) if (line.trim()) out.push(JSON.parse(line) as Outcome);
  return out;
}

async function writeOutcomes(file: string, rows: Outcome[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const gz = createGzip();
  const done = new Promise<void>((resolve) => gz.pipe(createWriteStream(file)).on('finish', () => resolve()));
  for (const r of rows) gz.write(JSON.stringify(r) + '\n');
  gz.end();
  await done;
}

/** One read with what pruning it at each scale would change in its run's cost. */
interface Read {
  run: string;
  validation: boolean;
  fold: number;
  facts: ReadFacts;
  showsFixLine: boolean;
  charsIn: number;
  /** Assistant turns after the read. */
  after: number;
  /** Context before the read plus the re-read command: what one extra turn costs. */
  rereadTurn: number;
  actions: Map<string, { charsOut: number; lost: number }>;
}

function collectReads(runs: TrajectoryRun[], outcomes: Outcome[], task: boolean): Read[] {
  const byKey = new Map<string, Read>();
  for (const run of runs) {
    const after: number[] = new Array(run.messages.length).fill(0);
    for (let i = run.messages.length - 1, a = 0; i >= 0; i--) {
      after[i] = a;
      if (run.messages[i].role === 'assistant') a++;
    }
    // what a session would count: reads so far, and earlier reads of the same path
    let ctx = 0;
    let readIndex = 0;
    const pathReads = new Map<string, number>();
    const steps = new Map(run.steps.filter((s) => s.read).map((s) => [s.message, s]));
    run.messages.forEach((m, i) => {
      const step = steps.get(i);
      if (step?.read) {
        const path = step.read.path ? normalizeSessionPath(step.read.path) : '';
        byKey.set(`${run.instance_id}@${i}`, {
          run: run.instance_id,
          validation: isValidationRun(run.instance_id),
          fold: createHash('sha1').update(run.instance_id).digest()[1] % 5,
          facts: { kind: 'file', chars: 0, hasTask: task, priorReads: path ? (pathReads.get(path) ?? 0) : 0, readIndex },
          showsFixLine: false,
          charsIn: 0,
          after: after[i],
          rereadTurn: ctx + m.content.length + (run.messages[i - 1]?.content.length ?? 0),
          actions: new Map(),
        });
        readIndex++;
        if (path) pathReads.set(path, (pathReads.get(path) ?? 0) + 1);
      }
      ctx += m.content.length;
    });
  }
  for (const o of outcomes) {
    if (o.task !== task) continue;
    const r = byKey.get(`${o.run}@${o.step}`);
    if (!r) continue;
    r.facts.kind = o.readKind;
    r.facts.chars = o.charsIn;
    r.charsIn = o.charsIn;
    r.showsFixLine = o.gold > 0;
    r.actions.set(o.action, { charsOut: o.charsOut, lost: o.lost });
  }
  return [...byKey.values()].filter((r) => r.actions.size === SCALES.length);
}

/** Logistic regression of showsFixLine on the gate's features (standardized, L2), as raw-feature weights. */
function fitGate(reads: Read[], task: boolean): ReadGate {
  const X = reads.map((r) => gateFeatures(r.facts));
  const y = reads.map((r) => (r.showsFixLine ? 1 : 0));
  const d = X[0].length;
  const mean = new Array(d).fill(0);
  const sd = new Array(d).fill(0);
  for (const x of X) x.forEach((v, j) => (mean[j] += v / X.length));
  for (const x of X) x.forEach((v, j) => (sd[j] += (v - mean[j]) ** 2 / X.length));
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]) || 1;
  const Z = X.map((x) => x.map((v, j) => (v - mean[j]) / sd[j]));
  let b = 0;
  const w = new Array(d).fill(0);
  for (let it = 0; it < 2000; it++) {
    let gb = 0;
    const gw = new Array(d).fill(0);
    Z.forEach((z, i) => {
      const p = 1 / (1 + Math.exp(-(b + z.reduce((s, v, j) => s + v * w[j], 0))));
      gb += p - y[i];
      z.forEach((v, j) => (gw[j] += (p - y[i]) * v));
    });
    b -= gb / Z.length;
    for (let j = 0; j < d; j++) w[j] -= (gw[j] + w[j]) / Z.length;
  }
  const weights = w.map((v, j) => v / sd[j]);
  const bias = b - weights.reduce((s, v, j) => s + v * mean[j], 0);
  return { task, bias, weights, ladder: [] };
}

const probability = (g: ReadGate, f: ReadFacts) => 1 / (1 + Math.exp(-gateFeatures(f).reduce((s, v, j) => s + v * g.weights[j], g.bias)));

/** The τ scale the ladder gives a read of probability p (null: whole). */
function scaleFor(ladder: ReadGate['ladder'], p: number): number | null {
  return ladder.find((b) => p < b.below)?.tauScale ?? null;
}

/** Change in run cost of one read at a scale (negative = saving), and whether it lost a fix line. */
function delta(r: Read, scale: number | null): { cost: number; lost: boolean; charsOut: number } {
  if (r.facts.chars > FITTED_CHARS) scale = 1;
  if (scale === null) return { cost: 0, lost: false, charsOut: r.charsIn };
  const a = r.actions.get(String(scale))!;
  const saved = (r.charsIn - a.charsOut) * r.after;
  if (a.lost === 0) return { cost: -saved, lost: false, charsOut: a.charsOut };
  // a re-read: one more turn over the whole context, then the whole output for the rest of the run
  return { cost: -saved + r.rereadTurn + (r.charsIn + 200) * r.after, lost: true, charsOut: a.charsOut };
}

interface Figures {
  cost: number;
  lost: number;
  fixReads: number;
  readSaving: number;
}

function evaluate(reads: Read[], probs: number[], ladder: ReadGate['ladder']): Figures {
  let cost = 0;
  let lost = 0;
  let fixReads = 0;
  let charsIn = 0;
  let charsOut = 0;
  reads.forEach((r, i) => {
    const d = delta(r, scaleFor(ladder, probs[i]));
    cost += d.cost;
    if (d.lost) lost++;
    if (r.showsFixLine) fixReads++;
    charsIn += r.charsIn;
    charsOut += d.charsOut;
  });
  return { cost, lost, fixReads, readSaving: 1 - charsOut / charsIn };
}

function* ladders(): Generator<ReadGate['ladder']> {
  for (const scales of LADDERS)
    for (const a of EDGES)
      for (const b of EDGES)
        for (const c of EDGES)
          if (a <= b && b <= c)
            yield [
              { below: a, tauScale: scales[0] },
              { below: b, tauScale: scales[1] },
              { below: c, tauScale: scales[2] },
            ];
}

function fitPolicy(train: Read[], task: boolean, maxLost: number): { gate: ReadGate; cv: Figures } {
  // cross-validated probabilities: each fold scored by a gate fitted on the other four
  const cvProbs = new Array<number>(train.length);
  for (let f = 0; f < 5; f++) {
    const gate = fitGate(
      train.filter((r) => r.fold !== f),
      task,
    );
    train.forEach((r, i) => {
      if (r.fold === f) cvProbs[i] = probability(gate, r.facts);
    });
  }
  let best: { ladder: ReadGate['ladder']; cv: Figures } | null = null;
  for (const ladder of ladders()) {
    const cv = evaluate(train, cvProbs, ladder);
    if (cv.lost / cv.fixReads > maxLost) continue;
    if (!best || cv.cost < best.cv.cost) best = { ladder, cv };
  }
  const gate = fitGate(train, task);
  // nothing within the loss bound: every read whole
  gate.ladder = best?.ladder.filter((b, i, all) => i === all.length - 1 || b.below < all[i + 1].below) ?? [];
  return { gate, cv: best?.cv ?? { cost: 0, lost: 0, fixReads: 0, readSaving: 0 } };
}

const round = (x: number, digits: number) => Number(x.toPrecision(digits));

/** Area under the ROC curve of scores for the positives (ties count half). */
function auc(scores: number[], positive: boolean[]): number {
  let pairs = 0;
  let wins = 0;
  scores.forEach((s, i) => {
    if (!positive[i]) return;
    scores.forEach((t, j) => {
      if (positive[j]) return;
      pairs++;
      wins += s > t ? 1 : s === t ? 0.5 : 0;
    });
  });
  return wins / pairs;
}

/** The default outcomes cache: one file per shipped model (its header and weights). */
function defaultOutcomesPath(): string {
  const dir = defaultModelDir();
  if (!dir) throw new Error('no shipped model in models/default: the read policy is fitted on its outcomes');
  const hash = createHash('sha1');
  for (const name of ['model.json', 'weights.bin']) hash.update(readFileSync(join(dir, name)));
  return `.bench-out/read-policy-outcomes-${hash.digest('hex').slice(0, 10)}.jsonl.gz`;
}

async function main() {
  const runs = await loadRuns();
  const outcomesPath = args.outcomes ?? defaultOutcomesPath();
  let outcomes: Outcome[];
  if (existsSync(outcomesPath)) outcomes = await readOutcomes(outcomesPath);
  else {
    outcomes = await computeOutcomes(runs);
    await writeOutcomes(outcomesPath, outcomes);
  }
  const maxLost = Number(args['max-lost']);
  const gates: ReadGate[] = [];
  const show = (name: string, f: Figures) =>
    `  ${name}: cost change ${(f.cost / 1e6).toFixed(1)}M chars, read saving ${(100 * f.readSaving).toFixed(1)}%, lost ${f.lost}/${f.fixReads} (${((100 * f.lost) / Math.max(1, f.fixReads)).toFixed(2)}%)`;
  for (const task of [false, true]) {
    const reads = collectReads(runs, outcomes, task);
    const train = reads.filter((r) => !r.validation);
    const val = reads.filter((r) => r.validation);
    const { gate, cv } = fitPolicy(train, task, maxLost);
    const printed: ReadGate = { task, bias: round(gate.bias, 4), weights: gate.weights.map((w) => round(w, 4)), ladder: gate.ladder };
    gates.push(printed);
    const probs = (set: Read[]) => set.map((r) => probability(printed, r.facts));
    const tau1 = [{ below: 2, tauScale: 1 }];
    console.log(
      `${task ? 'with' : 'without'} the task: gate AUC on the validation runs ${auc(
        probs(val),
        val.map((r) => r.showsFixLine),
      ).toFixed(3)}`,
    );
    console.log(show('training, cross-validated', cv));
    console.log(show('training', evaluate(train, probs(train), printed.ladder)));
    console.log(show('validation', evaluate(val, probs(val), printed.ladder)));
    console.log(show('validation, tau x1 on every read', evaluate(val, probs(val), tau1)));
  }
  console.log('export const READ_POLICY: ReadGate[] = [');
  for (const g of gates) console.log(`  ${JSON.stringify(g)},`);
  console.log('];');
}

await main();
