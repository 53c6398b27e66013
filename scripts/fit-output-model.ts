/**
 * Fit the learned judgement of output lines (src/core/output/lineModel.ts) on the training runs of
 * a trajectories file (runs outside the validation split of src/bench/trajectories.ts):
 *   1. replay every output other than a file read in run order (the rules alone, with session
 *      memory, as pruneOutput() sees them), and label each plain line the rules would keep by the
 *      bench's used-line rule (the agent's next message names one of its rarer words);
 *   2. fit gradient-boosted trees (logistic loss, depth --depth, --trees rounds) on those lines;
 *   3. choose the threshold by cross-validation over runs (--folds): each fold's model, fitted on
 *      the other folds, prunes its runs' outputs, and the threshold and context (lineModel.ts: a
 *      line folds when p(used) < threshold x its characters / (context + the output's characters),
 *      the context a base plus so many characters per line the session has shown: a loss late in
 *      a run costs a turn over a larger context) with the best net saving of whole runs win,
 *      charging a lost output as the bench does (one more turn over the context, and the whole
 *      output again for the rest of the run), among those that lose at most --max-lost of the
 *      outputs with a used line, and at most --max-family-lost of one command family's (those
 *      with --family-min such outputs or more); then a factor on the threshold for each command family, one
 *      family at a time, the same way;
 *   4. refit on every training run and write the model with those choices (threshold 0: no say,
 *      when nothing beats the rules alone). Then `npm run format` (the JSON as biome lays it out).
 *
 *   npx tsx scripts/fit-output-model.ts [--data ../shared/bench/trajectories-dev.jsonl.gz] [--out src/core/output/lineModel.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readJsonRecords } from '../src/bench/cases.js';
import { usedLines } from '../src/bench/outputSteps.js';
import { isTrajectoryRecord, isValidationRun, splitObservation, type TrajectoryRun } from '../src/bench/trajectories.js';
import { detectShape } from '../src/core/output/detect.js';
import { planFolds } from '../src/core/output/fold.js';
import { COMMAND_FAMILY_COUNT, commandFamily, LINE_FEATURES } from '../src/core/output/lineFeatures.js';
import type { LineModel, LineTree } from '../src/core/output/lineModel.js';
import { analysedFeatures, treeScore } from '../src/core/output/lineModel.js';
import { splitOutput } from '../src/core/output/lines.js';
import { OutputMemory } from '../src/core/output/memory.js';
import { analyseOutput, pruneOutput, seenBefore } from '../src/core/output/pruneOutput.js';
import { fileReadOf } from '../src/core/output/readCommand.js';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/bench/trajectories-dev.jsonl.gz' },
    out: { type: 'string', default: 'src/core/output/lineModel.json' },
    folds: { type: 'string', default: '5' },
    trees: { type: 'string', default: '120' },
    depth: { type: 'string', default: '4' },
    rate: { type: 'string', default: '0.1' },
    'max-lost': { type: 'string', default: '0.01' },
    /** At most this share of one command family's outputs with a used line lost (families with --family-min of them). */
    'max-family-lost': { type: 'string', default: '0.02' },
    'family-min': { type: 'string', default: '100' },
    thresholds: { type: 'string', default: '1,2,3,4' },
    'context-chars': { type: 'string', default: '0,1000,4000' },
    /** Characters of context per line the session has shown (lineModel.ts charsPerShownLine; 0: the context is constant). */
    'shown-line-chars': { type: 'string', default: '0,80,160,320' },
    /** Stop after the threshold search (no family factors, nothing written). */
    'dry-run': { type: 'boolean', default: false },
  },
});

interface OutputStep {
  text: string;
  command: string;
  query: string;
  task: string;
  used: Set<number>;
  /** Assistant turns after the output: how many times its characters are read again. */
  turnsAfter: number;
  /** What losing it costs (the bench's re-read): a turn over the context, then the command and the output carried to the end. */
  lostCost: number;
}

/** A message that is not an output: in the context as it was (its lines count as shown). */
type Event = OutputStep | { context: string };

const runs: TrajectoryRun[] = [];
for await (const { rec } of readJsonRecords(args.data!)) if (isTrajectoryRecord(rec)) runs.push(rec as unknown as TrajectoryRun);
const training = runs.filter((r) => !isValidationRun(r.instance_id));
const K = Number(args.folds);
const foldOf = (run: number) => run % K;

/** Each training run in order: its outputs (not cut, not a read), with what the run costs, and the other messages. */
let totalCost = 0;
const eventsByRun: Event[][] = training.map((run) => {
  const turnsAfter: number[] = new Array(run.messages.length).fill(0);
  for (let i = run.messages.length - 2; i >= 0; i--) turnsAfter[i] = turnsAfter[i + 1] + (run.messages[i + 1].role === 'assistant' ? 1 : 0);
  const stepAt = new Map(run.steps.map((s) => [s.message, s]));
  const events: Event[] = [];
  let ctx = 0;
  run.messages.forEach((m, i) => {
    if (m.role === 'assistant') totalCost += ctx;
    const s = stepAt.get(i);
    const obs = s && m.role === 'user' && !s.read && !s.truncated && !fileReadOf(s.command ?? '') ? splitObservation(m.content) : null;
    if (s && obs) {
      const next = run.messages[i + 1]?.role === 'assistant' ? run.messages[i + 1].content : '';
      const lostCost = ctx + ((run.messages[i - 1]?.content.length ?? 0) + m.content.length) * turnsAfter[i];
      events.push({
        text: obs.body,
        command: s.command ?? '',
        query: s.thought,
        task: run.task,
        used: new Set(usedLines(obs.body, next, s.command)),
        turnsAfter: turnsAfter[i],
        lostCost,
      });
    } else events.push({ context: m.content });
    ctx += m.content.length;
  });
  return events;
});
const stepsByRun: OutputStep[][] = eventsByRun.map((events) => events.filter((e): e is OutputStep => 'text' in e));
console.log(`${training.length} training runs of ${runs.length}, ${stepsByRun.flat().length} outputs`);

// 1. Examples: the plain lines the rules keep.
const F = LINE_FEATURES.length;
const xs: number[] = [];
const ys: number[] = [];
const runOf: number[] = [];
const outputOf: number[] = [];
const lineChars: number[] = [];
const lineTurns: number[] = [];
/** What the lines the rules keep cost (characters x turns that carry them), unused and used: plain lines (the candidates), relevant, signal, and outputs too short to prune. */
const keptCost = { plain: [0, 0], relevant: [0, 0], signal: [0, 0], short: [0, 0] };
let outputs = 0;
/** Per output the judgement sees: the lines its session had shown before it. */
const shownAt: number[] = [];
stepsByRun.forEach((steps, run) => {
  const memory = new OutputMemory();
  for (const s of steps) {
    const { lines } = splitOutput(s.text);
    const seen = seenBefore(lines, memory, s.command, detectShape(lines, s.command).main.kind === 'listing');
    if (lines.length >= 20 || seen) {
      const a = analyseOutput(lines, s, seen);
      const folds = planFolds({ ...a, unlikely: null });
      const folded = new Uint8Array(lines.length);
      for (const f of folds) folded.fill(1, f.from - 1, f.to);
      const x = analysedFeatures(a);
      for (let i = 0; i < lines.length; i++) {
        if (!folded[i] && !seen?.[i]) {
          const c = a.roles[i] === 'signal' ? keptCost.signal : a.relevant[i] ? keptCost.relevant : a.roles[i] === 'plain' ? keptCost.plain : null;
          if (c) c[s.used.has(i + 1) ? 1 : 0] += (lines[i].length + 1) * s.turnsAfter;
        }
        if (folded[i] || a.roles[i] !== 'plain' || a.relevant[i] || seen?.[i]) continue;
        for (let f = 0; f < F; f++) xs.push(x[i * F + f]);
        ys.push(s.used.has(i + 1) ? 1 : 0);
        runOf.push(run);
        outputOf.push(outputs);
        lineChars.push(lines[i].length + 1);
        lineTurns.push(s.turnsAfter);
      }
      shownAt.push(memory.size.lines);
      outputs++;
    } else for (let i = 0; i < lines.length; i++) keptCost.short[s.used.has(i + 1) ? 1 : 0] += (lines[i].length + 1) * s.turnsAfter;
    pruneOutput({ text: s.text, command: s.command, query: s.query, task: s.task, memory, judge: false });
  }
});
const pts = (v: number) => ((100 * v) / totalCost).toFixed(2);
console.log(
  `kept chars x turns after, points of run cost (unused / used): ${Object.entries(keptCost)
    .map(([k, [u, y]]) => `${k} ${pts(u)} / ${pts(y)}`)
    .join(', ')}`,
);
const n = ys.length;
console.log(`${n} candidate lines, ${ys.filter((y) => y).length} used`);

// 2. Gradient-boosted trees on binned features (at most 64 bins a feature, split at bin edges).
const X = Float64Array.from(xs);
const edges: number[][] = LINE_FEATURES.map((_, f) => {
  const vals = Array.from(new Set(Array.from({ length: n }, (_, i) => X[i * F + f]))).sort((a, b) => a - b);
  if (vals.length <= 64) return vals.slice(0, -1).map((v, k) => (v + vals[k + 1]) / 2);
  const out: number[] = [];
  for (let b = 1; b < 64; b++) {
    const v = vals[Math.floor((b * vals.length) / 64)];
    const prev = vals[Math.floor((b * vals.length) / 64) - 1];
    const e = (v + prev) / 2;
    if (out.length === 0 || e > out[out.length - 1]) out.push(e);
  }
  return out;
});
const bins = new Uint8Array(n * F);
for (let i = 0; i < n; i++)
  for (let f = 0; f < F; f++) {
    const e = edges[f];
    const v = X[i * F + f];
    let lo = 0;
    let hi = e.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v <= e[mid]) hi = mid;
      else lo = mid + 1;
    }
    bins[i * F + f] = lo;
  }

const DEPTH = Number(args.depth);
const LAMBDA = 1;
const MIN_HESSIAN = 5;

function fitTrees(rows: Int32Array): Pick<LineModel, 'base' | 'trees'> {
  let pos = 0;
  for (const i of rows) pos += ys[i];
  const prior = Math.min(Math.max(pos / rows.length, 1e-4), 1 - 1e-4);
  const base = Math.log(prior / (1 - prior));
  const z = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const trees: LineTree[] = [];
  const rate = Number(args.rate);
  for (let round = 0; round < Number(args.trees); round++) {
    for (const i of rows) {
      const p = 1 / (1 + Math.exp(-z[i]));
      g[i] = p - ys[i];
      h[i] = Math.max(p * (1 - p), 1e-6);
    }
    const tree: LineTree = { feature: [], split: [], left: [], right: [], value: [] };
    grow(tree, rows, 0, g, h, rate);
    trees.push(tree);
    for (const i of rows) z[i] += treeScore({ base: 0, trees: [tree] }, X, i * F);
  }
  return { base, trees };
}

/** Grow a node over `rows` and return its index. */
function grow(t: LineTree, rows: Int32Array, depth: number, g: Float64Array, h: Float64Array, rate: number): number {
  const k = t.feature.length;
  t.feature.push(-1);
  t.split.push(0);
  t.left.push(-1);
  t.right.push(-1);
  t.value.push(0);
  let G = 0;
  let H = 0;
  for (const i of rows) {
    G += g[i];
    H += h[i];
  }
  t.value[k] = Number(((-G / (H + LAMBDA)) * rate).toFixed(5));
  if (depth >= DEPTH || H < 2 * MIN_HESSIAN) return k;
  const parent = (G * G) / (H + LAMBDA);
  let best = { gain: 1e-6, f: -1, b: -1 };
  const hg = new Float64Array(65);
  const hh = new Float64Array(65);
  for (let f = 0; f < F; f++) {
    const nb = edges[f].length + 1;
    if (nb < 2) continue;
    hg.fill(0);
    hh.fill(0);
    for (const i of rows) {
      const b = bins[i * F + f];
      hg[b] += g[i];
      hh[b] += h[i];
    }
    let GL = 0;
    let HL = 0;
    for (let b = 0; b < nb - 1; b++) {
      GL += hg[b];
      HL += hh[b];
      const HR = H - HL;
      if (HL < MIN_HESSIAN || HR < MIN_HESSIAN) continue;
      const GR = G - GL;
      const gain = (GL * GL) / (HL + LAMBDA) + (GR * GR) / (HR + LAMBDA) - parent;
      if (gain > best.gain) best = { gain, f, b };
    }
  }
  if (best.f < 0) return k;
  const leftRows: number[] = [];
  const rightRows: number[] = [];
  for (const i of rows) (bins[i * F + best.f] <= best.b ? leftRows : rightRows).push(i);
  t.feature[k] = best.f;
  t.split[k] = edges[best.f][best.b];
  t.value[k] = 0;
  t.left[k] = grow(t, Int32Array.from(leftRows), depth + 1, g, h, rate);
  t.right[k] = grow(t, Int32Array.from(rightRows), depth + 1, g, h, rate);
  return k;
}

/** Log-loss and the share of used lines among the lowest-scored fifth, on held-out rows. */
function heldOut(m: Pick<LineModel, 'base' | 'trees'>, rows: Int32Array): string {
  let loss = 0;
  const scored = Array.from(rows, (i) => {
    const p = 1 / (1 + Math.exp(-treeScore(m, X, i * F)));
    loss -= ys[i] ? Math.log(p) : Math.log(1 - p);
    return [p, ys[i]] as const;
  }).sort((a, b) => a[0] - b[0]);
  const low = scored.slice(0, Math.floor(scored.length / 2));
  return `log-loss ${(loss / rows.length).toFixed(4)}, used lines among the lower half ${low.filter((s) => s[1]).length} of ${scored.filter((s) => s[1]).length}`;
}

// 3. Cross-validated threshold: each fold's model prunes that fold's runs.
const foldModels: Pick<LineModel, 'base' | 'trees'>[] = [];
const oof = new Float64Array(n);
for (let k = 0; k < K; k++) {
  const train = Int32Array.from(runOf.flatMap((r, i) => (foldOf(r) !== k ? [i] : [])));
  const test = Int32Array.from(runOf.flatMap((r, i) => (foldOf(r) === k ? [i] : [])));
  foldModels.push(fitTrees(train));
  for (const i of test) oof[i] = 1 / (1 + Math.exp(-treeScore(foldModels[k], X, i * F)));
  console.log(`fold ${k + 1}/${K}: ${heldOut(foldModels[k], test)}`);
}
// How much of the candidates' cost lies below each held-out probability (what a judgement could reach).
for (const p of [0.002, 0.01, 0.05]) {
  let cost = 0;
  const losing = new Set<number>();
  for (let i = 0; i < n; i++)
    if (oof[i] < p) {
      cost += lineChars[i] * lineTurns[i];
      if (ys[i]) losing.add(outputOf[i]);
    }
  console.log(`held out, p < ${p}: ${pts(cost)} points of run cost, ${losing.size} outputs with a used line among them`);
}

interface Replayed {
  lost: number;
  usedOutputs: number;
  /** Per command family: outputs lost and outputs with a used line. */
  families: { lost: number; used: number }[];
  saved: number;
  chars: number;
  /** Cost saved over the runs (characters x turns that carry them, less what losses cost). */
  costSaved: number;
}

function replay(judge: (run: number) => false | LineModel): Replayed {
  const families = Array.from({ length: COMMAND_FAMILY_COUNT }, () => ({ lost: 0, used: 0 }));
  const r = { lost: 0, usedOutputs: 0, families, saved: 0, chars: 0, costSaved: 0 };
  eventsByRun.forEach((events, run) => {
    const memory = new OutputMemory();
    const shown = new Set<string>();
    for (const s of events) {
      if ('context' in s) {
        for (const l of s.context.split('\n')) shown.add(l);
        continue;
      }
      const out = pruneOutput({ text: s.text, command: s.command, query: s.query, task: s.task, memory, judge: judge(run) });
      const lines = s.text.split('\n');
      const kept = new Set(lines.filter((_, k) => out.keepMask[k]));
      const family = families[commandFamily(s.command)];
      if (s.used.size > 0) {
        r.usedOutputs++;
        family.used++;
      }
      const lost = [...s.used].some((k) => !out.keepMask[k - 1] && !shown.has(lines[k - 1]) && !kept.has(lines[k - 1]));
      if (lost) {
        r.lost++;
        family.lost++;
      }
      for (const l of lost ? lines : out.text.split('\n')) shown.add(l);
      r.saved += s.text.length - out.text.length;
      r.chars += s.text.length;
      r.costSaved += (s.text.length - out.text.length) * s.turnsAfter - (lost ? s.lostCost : 0);
    }
  });
  return r;
}
const describe = (r: Replayed) =>
  `net ${((100 * r.costSaved) / totalCost).toFixed(2)}% of run cost, output characters saved ${((100 * r.saved) / r.chars).toFixed(1)}%, lost ${r.lost} of ${r.usedOutputs} (${((100 * r.lost) / r.usedOutputs).toFixed(2)}%; by family ${r.families.map((f) => `${f.lost}/${f.used}`).join(' ')})`;
const rules = replay(() => false);
console.log(`rules alone: ${describe(rules)}`);
const ones = () => new Array<number>(COMMAND_FAMILY_COUNT).fill(1);
let chosen = { threshold: 0, contextChars: 0, charsPerShownLine: 0, familyScale: ones(), costSaved: rules.costSaved };
const judgeAt =
  ({ costSaved: _, ...c }: typeof chosen) =>
  (run: number): LineModel => ({ features: [...LINE_FEATURES], ...foldModels[foldOf(run)], ...c });
// Within the loss limits, overall and for each family with enough outputs to tell (a kind of output
// an agent loses often is one it stops trusting, whatever the whole run saves).
const withinLimits = (r: Replayed) =>
  r.lost / r.usedOutputs <= Number(args['max-lost']) &&
  r.families.every((f) => f.used < Number(args['family-min']) || f.lost / f.used <= Number(args['max-family-lost']));
const better = (r: Replayed) => withinLimits(r) && r.costSaved > chosen.costSaved;
const overFamilyLimit = (r: Replayed) =>
  r.families.flatMap((f, k) => (f.used >= Number(args['family-min']) && f.lost / f.used > Number(args['max-family-lost']) ? [k] : []));
/** A candidate whose families over their limit fold less (their factor halved, down to 0: the rules alone) until they are within it. */
function withFamiliesWithinLimit(at: typeof chosen, r: Replayed): { at: typeof chosen; r: Replayed } {
  for (let over = overFamilyLimit(r); over.length > 0; over = overFamilyLimit(r)) {
    const familyScale = at.familyScale.map((v, k) => (over.includes(k) ? (v > 0.25 ? v / 2 : 0) : v));
    at = { ...at, familyScale };
    r = replay(judgeAt(at));
    console.log(`  families ${over.join(', ')} folding less (factors ${familyScale.join(' ')}): ${describe(r)}`);
  }
  return { at, r };
}
for (const charsPerShownLine of args['shown-line-chars']!.split(',').map(Number))
  for (const contextChars of args['context-chars']!.split(',').map(Number))
    for (const threshold of args.thresholds!.split(',').map(Number)) {
      const base = { threshold, contextChars, charsPerShownLine, familyScale: ones(), costSaved: 0 };
      const first = replay(judgeAt(base));
      console.log(`τ ${threshold}, context ${contextChars} + ${charsPerShownLine} per shown line: ${describe(first)}`);
      const { at, r } = withFamiliesWithinLimit(base, first);
      if (better(r)) chosen = { ...at, costSaved: r.costSaved };
    }
if (args['dry-run']) process.exit(0);
// Then each command family's factor on the threshold, one family at a time (0: the rules alone).
if (chosen.threshold > 0)
  for (let f = 0; f < COMMAND_FAMILY_COUNT; f++)
    for (const factor of [0, 0.5, 2]) {
      const familyScale = chosen.familyScale.map((v, k) => (k === f ? v * factor : v));
      const r = replay(judgeAt({ ...chosen, familyScale }));
      console.log(`family ${f} x${factor}: ${describe(r)}`);
      if (better(r)) chosen = { ...chosen, familyScale, costSaved: r.costSaved };
    }

// 4. The model of every training run, at the chosen threshold.
const final = fitTrees(Int32Array.from({ length: n }, (_, i) => i));
const model: LineModel = {
  features: [...LINE_FEATURES],
  base: Number(final.base.toFixed(5)),
  trees: final.trees,
  threshold: chosen.threshold,
  contextChars: chosen.contextChars,
  familyScale: chosen.familyScale,
  charsPerShownLine: chosen.charsPerShownLine,
  typicalShownLines: shownAt.sort((x, y) => x - y)[Math.floor(shownAt.length / 2)] ?? 0,
};
writeFileSync(args.out!, `${JSON.stringify(model)}\n`);
console.log(
  `threshold ${chosen.threshold}, context ${chosen.contextChars} + ${chosen.charsPerShownLine} per shown line, family factors ${chosen.familyScale.join(' ')} -> ${args.out}`,
);
