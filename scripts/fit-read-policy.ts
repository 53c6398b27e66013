/**
 * Fit the read policy (src/core/policy/readPolicy.ts) on whole agent runs.
 *
 *   npx tsx scripts/fit-read-policy.ts --cases ../shared/bench/trajectories-dev.jsonl.gz \
 *     [--outcomes .bench-out/read-policy-outcomes.jsonl.gz] [--max-lost 0.01] [--actions 0.5,1]
 *
 * 1. Outcomes: replay every run once per candidate action (the whole read, or threshold mode at
 *    τ x s for each scale s), without session memory, and record per read what it kept and lost.
 *    Cached in --outcomes (re-used when the file exists).
 * 2. Fit on the training split of runs (src/bench/trajectories.ts isValidationRun): per read
 *    kind and size band, a document-score split and an action on each side, minimising the
 *    change in run cost (characters saved x assistant turns after the read, against a re-read's
 *    extra turn and whole observation) plus a penalty per lost read: the smallest penalty whose
 *    5-fold cross-validated share of fix-line reads lost is at most --max-lost. Size bands with
 *    too few reads share the band below; reads over FITTED_CHARS keep the calibrated τ.
 * 3. Print the table (paste into READ_POLICY) and its figures on the training and validation runs.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip } from 'node:zlib';
import { parseArgs } from 'node:util';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';
import { readJsonRecords } from '../src/bench/cases.js';
import { isTrajectoryRecord, isValidationRun, replayRun, TRAJECTORY_METHODS, type ReadRecord, type TrajectoryRun } from '../src/bench/trajectories.js';
import { createPruner } from '../src/core/prune.js';
import { FITTED_CHARS, type ReadKind, type ReadRule } from '../src/core/policy/readPolicy.js';

const SCALES = [0.25, 0.5, 1, 2, 4, 8, 16, 32];
const KINDS: ReadKind[] = ['file', 'window', 'grep'];
/** Bands of read size in characters; reads over FITTED_CHARS are outside the data and keep τ x1. */
const SIZE_BANDS = [0, 2500, 5000];
/** A band (or a document-score side of one) needs this many training reads to get its own action. */
const MIN_BAND_READS = 50;
const MIN_SIDE_READS = 20;
const DOC_QUANTILES = [0, 0.25, 0.5, 0.75];

const { values: args } = parseArgs({
  options: {
    cases: { type: 'string', default: '../shared/bench/trajectories-dev.jsonl.gz' },
    outcomes: { type: 'string', default: '.bench-out/read-policy-outcomes.jsonl.gz' },
    'max-lost': { type: 'string', default: '0.01' },
    /** The τ scales a band may choose besides "whole" (replayed: 0.25-32); more choices overfit: cross-validated loss 0.7% with 0.5,1, 1.4% with 0.5,1,2,4 (task given). */
    actions: { type: 'string', default: '0.5,1' },
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

/** Replays without memory, the read's thought as the query, with or without the run's task. */
const REPLAY = {
  task: { ...TRAJECTORY_METHODS.find((m) => m.name === 'policy-only')!, session: false },
  noTask: { ...TRAJECTORY_METHODS.find((m) => m.name === 'skim-no-task')!, session: false },
};

async function computeOutcomes(runs: TrajectoryRun[]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const task of [false, true]) {
    for (const s of SCALES) {
      const table: ReadRule[] = KINDS.map((kind) => ({ kind, task, minChars: 0, docSplit: 0, lowTauScale: s, tauScale: s }));
      const pruner = createPruner({ readPolicy: table });
      const t0 = Date.now();
      const method = task ? REPLAY.task : REPLAY.noTask;
      for (const run of runs) await replayRun(run, method, (req) => pruner.prune(req), (r) => out.push({ ...r, action: String(s), task }));
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
  const gz = createGzip();
  const done = new Promise<void>((resolve) => gz.pipe(createWriteStream(file)).on('finish', () => resolve()));
  for (const r of rows) gz.write(JSON.stringify(r) + '\n');
  gz.end();
  await done;
}

/** Per read: the whole-read cost figures its pruning changes. */
interface ReadCost {
  key: string;
  run: string;
  kind: ReadKind;
  charsIn: number;
  gold: number;
  validation: boolean;
  /** Assistant turns after the read. */
  after: number;
  /** Context before the read (unpruned run) plus the re-read command: what one extra turn costs. */
  rereadTurn: number;
  /** Per action: characters out, lost, document score. */
  actions: Map<string, { charsOut: number; lost: number; docScore: number }>;
}

function readCosts(runs: TrajectoryRun[], allOutcomes: Outcome[], task: boolean): ReadCost[] {
  const outcomes = allOutcomes.filter((o) => o.task === task);
  const byKey = new Map<string, ReadCost>();
  for (const run of runs) {
    let ctx = 0;
    const assistantAfter: number[] = new Array(run.messages.length).fill(0);
    for (let i = run.messages.length - 1, a = 0; i >= 0; i--) {
      assistantAfter[i] = a;
      if (run.messages[i].role === 'assistant') a++;
    }
    run.messages.forEach((m, i) => {
      const step = run.steps.find((s) => s.message === i && s.read);
      if (step) {
        byKey.set(`${run.instance_id}@${i}`, {
          key: `${run.instance_id}@${i}`,
          run: run.instance_id,
          kind: 'file',
          charsIn: 0,
          gold: 0,
          validation: isValidationRun(run.instance_id),
          after: assistantAfter[i],
          rereadTurn: ctx + m.content.length + (run.messages[i - 1]?.content.length ?? 0),
          actions: new Map(),
        });
      }
      ctx += m.content.length;
    });
  }
  for (const o of outcomes) {
    const c = byKey.get(`${o.run}@${o.step}`);
    if (!c) continue;
    c.kind = o.readKind;
    c.charsIn = o.charsIn;
    c.gold = o.gold;
    c.actions.set(o.action, { charsOut: o.charsOut, lost: o.lost, docScore: o.docScore });
  }
  return [...byKey.values()].filter((c) => c.actions.size > 0);
}

/** Cost change of one read under an action (negative = saving), and whether it lost a fix line. */
function delta(c: ReadCost, action: string | null): { cost: number; lost: boolean } {
  if (action === null) return { cost: 0, lost: false };
  const a = c.actions.get(action)!;
  const saved = (c.charsIn - a.charsOut) * c.after;
  if (a.lost === 0) return { cost: -saved, lost: false };
  // a re-read: one more turn over the whole context, then the whole observation for the rest of the run
  return { cost: -saved + c.rereadTurn + (c.charsIn + 200) * c.after, lost: true };
}

const docOf = (c: ReadCost) => c.actions.get('1')?.docScore ?? 0;

function quantile(xs: number[], q: number): number {
  if (xs.length === 0 || q === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

const ACTIONS: (string | null)[] = [null, ...args.actions!.split(',').map((a) => String(Number(a)))];

function fit(reads: ReadCost[], penalty: number, task: boolean): ReadRule[] {
  const rules: ReadRule[] = [];
  for (const kind of KINDS) {
    SIZE_BANDS.forEach((minChars, b) => {
      const maxChars = SIZE_BANDS[b + 1] ?? FITTED_CHARS + 1;
      const cell = reads.filter((c) => c.kind === kind && c.charsIn >= minChars && c.charsIn < maxChars);
      // too few reads to fit: the band below covers it
      if (b > 0 && cell.length < MIN_BAND_READS) return;
      const best = (side: ReadCost[]) => {
        let bestAction: string | null = null;
        let bestCost = 0;
        for (const a of ACTIONS) {
          let cost = 0;
          for (const c of side) {
            const d = delta(c, a);
            cost += d.cost + (d.lost ? penalty : 0);
          }
          if (cost < bestCost) {
            bestCost = cost;
            bestAction = a;
          }
        }
        return { action: bestAction, cost: bestCost };
      };
      let chosen: ReadRule = { kind, task, minChars, docSplit: 0, lowTauScale: null, tauScale: null };
      let chosenCost = Infinity;
      for (const q of DOC_QUANTILES) {
        const split = quantile(cell.map(docOf), q);
        const lowSide = cell.filter((c) => docOf(c) < split);
        const highSide = cell.filter((c) => docOf(c) >= split);
        if (q > 0 && (lowSide.length < MIN_SIDE_READS || highSide.length < MIN_SIDE_READS)) continue;
        const low = best(lowSide);
        const high = best(highSide);
        const cost = low.cost + high.cost;
        if (cost < chosenCost - 1e-9) {
          chosenCost = cost;
          const scale = (a: string | null) => (a === null ? null : Number(a));
          chosen = { kind, task, minChars, docSplit: Number(split.toPrecision(3)), lowTauScale: scale(low.action), tauScale: scale(high.action) };
        }
      }
      rules.push(chosen);
    });
    // beyond the runs' data: the calibrated threshold
    rules.push({ kind, task, minChars: FITTED_CHARS + 1, docSplit: 0, lowTauScale: 1, tauScale: 1 });
  }
  return rules;
}

function actionFor(rules: ReadRule[], c: ReadCost): string | null {
  for (let r = rules.length - 1; r >= 0; r--) {
    const rule = rules[r];
    if (rule.kind !== c.kind || c.charsIn < rule.minChars) continue;
    const s = docOf(c) < rule.docSplit ? rule.lowTauScale : rule.tauScale;
    return s === null ? null : String(s);
  }
  return '1';
}

function evaluate(rules: ReadRule[] | ((c: ReadCost) => string | null), reads: ReadCost[]) {
  let cost = 0;
  let lost = 0;
  let gold = 0;
  let charsIn = 0;
  let charsOut = 0;
  for (const c of reads) {
    const a = typeof rules === 'function' ? rules(c) : actionFor(rules, c);
    const d = delta(c, a);
    cost += d.cost;
    if (c.gold > 0) gold++;
    if (d.lost) lost++;
    charsIn += c.charsIn;
    charsOut += a === null ? c.charsIn : c.actions.get(a)!.charsOut;
  }
  return { costChange: cost, lost, gold, lostShare: lost / Math.max(1, gold), readSaving: 1 - charsOut / charsIn };
}

async function main() {
  const runs = await loadRuns();
  let outcomes: Outcome[];
  if (existsSync(args.outcomes!)) outcomes = await readOutcomes(args.outcomes!);
  else {
    outcomes = await computeOutcomes(runs);
    await mkdir(dirname(args.outcomes!), { recursive: true });
    await writeOutcomes(args.outcomes!, outcomes);
  }
  const maxLost = Number(args['max-lost']);
  const table: ReadRule[] = [];
  for (const task of [false, true]) {
    const reads = readCosts(runs, outcomes, task);
    const train = reads.filter((c) => !c.validation);
    const val = reads.filter((c) => c.validation);
    // The penalty per lost read: the smallest whose 5-fold cross-validated loss on the training
    // runs (fit on four folds, count on the fifth) is within --max-lost.
    const fold = (c: ReadCost) => createHash('sha1').update(c.run).digest()[1] % 5;
    const cvLost = (penalty: number) => {
      let lost = 0;
      let gold = 0;
      for (let f = 0; f < 5; f++) {
        const r = evaluate(fit(train.filter((c) => fold(c) !== f), penalty, task), train.filter((c) => fold(c) === f));
        lost += r.lost;
        gold += r.gold;
      }
      return lost / Math.max(1, gold);
    };
    let penalty = 0;
    for (let k = 0; k < 60 && cvLost(penalty) > maxLost; k++) penalty = penalty === 0 ? 1e4 : penalty * 1.5;
    const rules = fit(train, penalty, task);
    console.log(`  cross-validated lost share on the training runs: ${(100 * cvLost(penalty)).toFixed(2)}%`);
    const show = (name: string, r: ReturnType<typeof evaluate>) =>
      `${name}: cost change ${(r.costChange / 1e6).toFixed(1)}M chars, read saving ${(100 * r.readSaving).toFixed(1)}%, lost ${r.lost}/${r.gold} (${(100 * r.lostShare).toFixed(2)}%)`;
    console.log(`${task ? 'with' : 'without'} the task: penalty per lost read ${penalty.toFixed(0)} characters`);
    for (const [name, set] of [['train', train], ['validation', val]] as const) {
      console.log(show(`  ${name} fitted`, evaluate(rules, set)));
      console.log(show(`  ${name} tau x1 everywhere`, evaluate(() => '1', set)));
    }
    table.push(...rules);
  }
  console.log('export const READ_POLICY: ReadRule[] = [');
  for (const r of table) console.log(`  ${JSON.stringify(r).replace(/"(\w+)":/g, '$1: ').replace(/"/g, "'").replace(/,/g, ', ')},`);
  console.log('];');
}

await main();
