/**
 * `skim train` end to end: read the data files (both formats, streaming), label, featurize,
 * train, calibrate, write the model directory and a training report.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NUM_FEATURES } from '../core/features/columns.js';
import { NUM_CONTEXT_FEATURES } from '../core/features/contextFeatures.js';
import { loadModel, saveModel } from '../core/model/io.js';
import type { LamrModel, ModelMode } from '../core/model/lamr.js';
import { type LiftParams, liftNeighbours } from '../core/model/lift.js';
import { type CommitFilterStats, detectFormat, hash32, type LabeledFile, readCases, readCommits, readJsonl, repoDistractors } from './datasets.js';
import type { LossWeights } from './lamrLoss.js';
import { buildExamples, contextExamples, DEFAULT_WEIGHTS, type Example, fitBridges, prepareFiles } from './prepare.js';
import type { RubricStats } from './rubricLabels.js';
import { loadSyntaxSource } from './syntaxSource.js';
import { calibrateThreshold, DEFAULT_TRAIN, DISTRACTOR_WEIGHT, type EpochReport, evaluate, RELATIVE_FLOORS, selectionScore, train } from './trainer.js';

export interface TrainRunOptions {
  data: string[];
  out: string;
  init?: string;
  epochs?: number;
  /** Cap on filtered commit samples used for training. */
  maxSamples?: number;
  seed?: number;
  mode?: ModelMode;
  hidden?: number;
  /** Hidden units of the second (auto-context) stage (default: `hidden`). */
  contextHidden?: number;
  /** Same-repository distractor files per chosen commit sample (fractions: for that share of samples; 0 = none). */
  commitDistractors?: number;
  /** Extra same-repository distractor files per teacher query, beyond the one each case has. */
  teacherDistractors?: number;
  /** Weight of a teacher-labelled file against a commit sample's (default DEFAULT_WEIGHTS.teacher). */
  teacherWeight?: number;
  /** Target recall for threshold calibration. */
  targetRecall?: number;
  /** Cost of kept distractor characters against gold-file ones in the calibration (default DISTRACTOR_WEIGHT). */
  distractorWeight?: number;
  /** Also train the single-CRF ablation (rubric loss off, gate fixed) on the same cached examples, into this directory. */
  ablationOut?: string;
  /** Rubric loss weight lambda (default 0.25; LaMR's 0.6 measured worse here). */
  lambda?: number;
  /** Listwise ranking loss weight (LossWeights.rank). */
  rankWeight?: number;
  /** Train the second (auto-context) stage on top of the first (default true; the ablation never has one). */
  contextStage?: boolean;
  log: (msg: string) => void;
  progress: (label: string, total: number) => { update: (done: number, extra?: string) => void; stop: () => void };
}

export interface TrainSummary {
  command: string;
  date: string;
  mode: ModelMode;
  loss: LossWeights;
  hidden: number;
  seed: number;
  syntax: string;
  data: Record<string, number>;
  commitFilter?: CommitFilterStats;
  rubric: Record<string, RubricStats>;
  bridge: { samples: number; queryTerms: number; pairs: number };
  epochs: EpochReport[];
  bestEpoch: number;
  /** The first stage's own calibration (used when the context stage is switched off). */
  stage1Threshold?: ReturnType<typeof calibrateThreshold>;
  contextEpochs?: EpochReport[];
  contextBestEpoch?: number;
  contextHidden?: number;
  lift?: LiftParams;
  threshold: ReturnType<typeof calibrateThreshold>;
  seconds: { read: number; prepare: number; features: number; train: number; total: number };
  params: number;
}

export async function runTraining(o: TrainRunOptions): Promise<TrainSummary> {
  const t0 = Date.now();
  const seed = o.seed ?? DEFAULT_TRAIN.seed;
  const { files, bridgeOnly, commitFilter } = await readTrainingFiles(o);
  const tRead = Date.now();
  const count: Record<string, number> = {};
  for (const f of files) count[`${f.source}/${f.split}/${f.role}`] = (count[`${f.source}/${f.split}/${f.role}`] ?? 0) + 1;
  o.log(`files: ${JSON.stringify(count)}`);

  const syntax = await loadSyntaxSource();
  o.log(`syntax index: ${syntax.name}`);
  let bar = o.progress('syntax+labels', files.length);
  const { prepared, stats } = await prepareFiles(files, syntax, (d) => bar.update(d));
  bar.stop();
  const tPrep = Date.now();

  const bridges = fitBridges(prepared, bridgeOnly);
  let pairs = 0;
  for (const r of bridges.full.table.values()) pairs += r.length;
  o.log(`bridge: ${bridges.samples} samples, ${bridges.full.table.size} query terms, ${pairs} pairs`);
  bar = o.progress('features', prepared.length);
  const weights = { ...DEFAULT_WEIGHTS, teacher: o.teacherWeight ?? DEFAULT_WEIGHTS.teacher };
  const examples = buildExamples(prepared, bridges, weights, (d) => bar.update(d));
  bar.stop();
  const tFeat = Date.now();

  const trainEx = examples.filter((e) => e.file.split === 'train');
  const valEx = examples.filter((e) => e.file.split === 'val');
  const common = { t0, tRead, tPrep, tFeat, seed, syntaxName: syntax.name, count, commitFilter, stats, bridges, trainEx, valEx };
  const summary = fitAndSave(o, { ...common, mode: o.mode ?? DEFAULT_TRAIN.mode, out: o.out, contextStage: o.contextStage ?? true });
  if (o.ablationOut) {
    // the ablation reuses the cached features: its report counts its own training time only
    const now = Date.now();
    fitAndSave(o, { ...common, mode: 'single', out: o.ablationOut, t0: now, tRead: now, tPrep: now, tFeat: now, contextStage: false });
  }
  return summary;
}

/**
 * The training files of a run: from each data file (format detected from its first record) the
 * chosen commit samples (hash order, `maxSamples` train + 1/8 as many val) with their same-repository
 * distractors, the other filtered commit train samples (bridge only), and the teacher cases.
 */
export async function readTrainingFiles(
  o: Pick<TrainRunOptions, 'data' | 'maxSamples' | 'commitDistractors' | 'teacherDistractors' | 'log'>,
): Promise<{ files: LabeledFile[]; bridgeOnly: LabeledFile[]; commitFilter?: CommitFilterStats }> {
  const files: LabeledFile[] = [];
  const bridgeOnly: LabeledFile[] = [];
  let commitFilter: CommitFilterStats | undefined;
  for (const path of o.data) {
    let first: Record<string, unknown> | undefined;
    for await (const r of readJsonl(path)) {
      first = r;
      break;
    }
    if (!first) throw new Error(`no records in ${path}`);
    if (detectFormat(first) === 'commits') {
      commitFilter = { total: 0, noLabels: 0, vagueMessage: 0, hugeDiff: 0, tooShort: 0, kept: 0 };
      const maxTrain = o.maxSamples ?? 3000;
      const maxVal = Math.ceil(maxTrain / 8);
      o.log(`reading commits from ${path}: all filtered train samples feed the bridge; ${maxTrain} train + ${maxVal} val feed the model`);
      const all = await readCommits(path, { maxTrain: Infinity, maxVal: Infinity }, commitFilter);
      // a hash order spreads the picked samples over all repositories
      const pick = (split: string, k: number) =>
        all
          .filter((f) => f.split === split)
          .sort((a, b) => hash32(`pick:${a.id}`) - hash32(`pick:${b.id}`) || (a.id < b.id ? -1 : 1))
          .slice(0, k);
      const chosenTrain = pick('train', maxTrain);
      const chosen = new Set([...chosenTrain, ...pick('val', maxVal)]);
      files.push(...chosen);
      // distractors come from the same split's pool, so validation never sees a training window
      for (const split of ['train', 'val']) {
        const extra = repoDistractors(
          [...chosen].filter((f) => f.split === split),
          all.filter((f) => f.split === split),
          o.commitDistractors ?? 0,
        );
        files.push(...extra);
      }
      bridgeOnly.push(...all.filter((f) => f.split === 'train' && !chosen.has(f)));
    } else {
      o.log(`reading teacher cases from ${path}`);
      const cases = await readCases(path, 'teacher');
      files.push(...cases);
      for (const split of ['train', 'val']) {
        // the pool holds the cases' own distractors too: never drawn, they mark paths a query already has
        const pool = cases.filter((f) => f.split === split);
        files.push(
          ...repoDistractors(
            pool.filter((f) => f.role === 'gold'),
            pool,
            o.teacherDistractors ?? 0,
          ),
        );
      }
    }
  }
  return { files, bridgeOnly, commitFilter };
}

function fitAndSave(
  o: TrainRunOptions,
  c: {
    t0: number;
    tRead: number;
    tPrep: number;
    tFeat: number;
    seed: number;
    syntaxName: string;
    count: Record<string, number>;
    commitFilter?: CommitFilterStats;
    stats: Record<string, RubricStats>;
    bridges: ReturnType<typeof fitBridges>;
    trainEx: Example[];
    valEx: Example[];
    mode: ModelMode;
    out: string;
    contextStage: boolean;
  },
): TrainSummary {
  const { t0, tRead, tPrep, tFeat, seed, count, commitFilter, stats, bridges, trainEx, valEx } = c;
  const syntax = { name: c.syntaxName };
  let pairs = 0;
  for (const r of bridges.full.table.values()) pairs += r.length;
  // --init without --hidden takes the init model's width
  const initModel = o.init ? loadModel(o.init) : undefined;
  const hidden = o.hidden ?? initModel?.model.H ?? DEFAULT_TRAIN.hidden;
  const cfg = {
    ...DEFAULT_TRAIN,
    seed,
    mode: c.mode,
    epochs: o.epochs ?? DEFAULT_TRAIN.epochs,
    hidden,
    loss: { ...DEFAULT_TRAIN.loss, lambda: o.lambda ?? DEFAULT_TRAIN.loss.lambda, rank: o.rankWeight ?? DEFAULT_TRAIN.loss.rank },
  };
  let init: Float64Array | undefined;
  if (initModel) {
    const { model: m } = initModel;
    if (m.H !== cfg.hidden) throw new Error(`--init model ${o.init} has ${m.H} hidden units, not ${cfg.hidden}`);
    if (m.mode === cfg.mode) init = m.p;
    else o.log(`--init model is ${m.mode}, training ${cfg.mode} from scratch`);
  }
  o.log(`training ${cfg.mode} H=${cfg.hidden} lambda=${cfg.loss.lambda} on ${trainEx.length} examples, validating on ${valEx.length}`);
  const stage1 = fitStage(o, cfg, trainEx, valEx, NUM_FEATURES, init);
  const { model, reports, best } = stage1;
  // the first stage's own calibration (no floor): what the ablation without later stages uses
  const cal1 = calibrate(o, model, valEx, undefined, [0]);
  let cal = cal1;
  let context: { model: LamrModel; reports: EpochReport[]; best: number } | undefined;
  let lift: LiftParams | undefined;
  if (c.contextStage) {
    // second stage: the first stage's marginals on every example (in-sample on train: the first
    // stage has ~2k parameters for ~10k files) become context features next to the line features
    o.log(`context stage (H=${o.contextHidden ?? cfg.hidden}): ${NUM_CONTEXT_FEATURES} context features from the first stage's marginals`);
    const ctxCfg = { ...cfg, seed: seed + 1, hidden: o.contextHidden ?? cfg.hidden };
    const valCtx = contextExamples(model, valEx);
    const s2 = fitStage(o, ctxCfg, contextExamples(model, trainEx), valCtx, NUM_FEATURES + NUM_CONTEXT_FEATURES);
    context = { model: s2.model, reports: s2.reports, best: s2.best };
    lift = chooseLift(o, s2.model, valCtx);
    cal = calibrate(o, s2.model, valCtx, lift, RELATIVE_FLOORS);
  }
  const tTrain = Date.now();

  const summary: TrainSummary = {
    command: process.argv.slice(1).join(' '),
    date: new Date().toISOString(),
    mode: cfg.mode,
    loss: cfg.loss,
    hidden: cfg.hidden,
    seed,
    syntax: syntax.name,
    data: count,
    commitFilter,
    rubric: stats,
    bridge: { samples: bridges.samples, queryTerms: bridges.full.table.size, pairs },
    epochs: reports,
    bestEpoch: best,
    ...(context ? { stage1Threshold: cal1, contextHidden: context.model.H, contextEpochs: context.reports, contextBestEpoch: context.best, lift } : {}),
    threshold: cal,
    seconds: {
      read: (tRead - t0) / 1000,
      prepare: (tPrep - tRead) / 1000,
      features: (tFeat - tPrep) / 1000,
      train: (tTrain - tFeat) / 1000,
      total: (Date.now() - t0) / 1000,
    },
    params: model.p.length,
  };
  const bestRep = context ? context.reports.find((r) => r.epoch === context.best) : reports.find((r) => r.epoch === best);
  saveModel(
    c.out,
    model,
    bridges.full,
    {
      ...(context ? { stage1Threshold: Math.round(cal1.threshold * 1e5) / 1e5, stage1DocPower: cal1.docPower, contextBestEpoch: context.best } : {}),
      ...(lift ? { lift } : {}),
      relativeFloor: cal.relativeFloor,
      threshold: Math.round(cal.threshold * 1e5) / 1e5,
      docPower: cal.docPower,
      loss: cfg.loss,
      thresholdCalibration: `largest tau keeping >= ${cal.targetRecall} of the aggregate lines of the held-back teacher-train gold files (micro) with the docPower and relative floor that keep the fewest characters (distractor characters weighted ${cal.distractorWeight}x${cal.distractorWeight === DISTRACTOR_WEIGHT ? ', their excess in real reads' : ''}); see train-report.json`,
      syntax: syntax.name,
      createdAt: summary.date,
      seed,
      bestEpoch: best,
      validation: bestRep?.val,
    },
    context?.model,
  );
  writeFileSync(join(c.out, 'train-report.json'), JSON.stringify(summary, null, 1) + '\n');
  return summary;
}

/** Train one stage (Adam over cached examples, best epoch on validation). */
function fitStage(
  o: TrainRunOptions,
  cfg: typeof DEFAULT_TRAIN,
  trainEx: Example[],
  valEx: Example[],
  F: number,
  init?: Float64Array,
): { model: LamrModel; reports: EpochReport[]; best: number } {
  let bar = o.progress('train', 1);
  let barTotal = 0;
  const { model, reports, best } = train(trainEx, valEx, cfg, F, {
    init,
    onBatch: (d, total, loss) => {
      if (total !== barTotal) {
        bar.stop();
        bar = o.progress('train', total);
        barTotal = total;
      }
      bar.update(d, `loss ${loss.toFixed(4)}`);
    },
    onEpoch: (r) => {
      bar.stop();
      barTotal = 0;
      const parts = Object.entries(r.val).map(
        ([g, v]) =>
          `${g}: P ${v.prf.p.toFixed(3)} R ${v.prf.r.toFixed(3)} F1 ${v.prf.f1.toFixed(3)} R@4x ${v.recall4.toFixed(3)} R@8x ${v.recall8.toFixed(3)}${v.docAuc === undefined ? '' : ` doc AUC ${v.docAuc.toFixed(3)}`}`,
      );
      o.log(`epoch ${r.epoch} loss ${r.loss.toFixed(4)} (${r.seconds.toFixed(1)}s) select ${r.select.toFixed(4)}\n  ${parts.join('\n  ')}`);
    },
  });
  // ship float32 weights: evaluate/calibrate exactly what ships
  model.p.set(Float64Array.from(new Float32Array(model.p)));
  return { model, reports, best };
}

/** Neighbour-lift candidates (window 0 = none), chosen by the validation selection score. */
const LIFTS: LiftParams[] = [{ window: 0, alpha: 0 }, ...[1, 2, 3].flatMap((window) => [0.5, 0.7, 0.8, 0.9, 1].map((alpha) => ({ window, alpha })))];

function chooseLift(o: TrainRunOptions, model: LamrModel, valEx: Example[]): LiftParams | undefined {
  let best: { lift: LiftParams; score: number } | undefined;
  for (const lift of LIFTS) {
    const score = selectionScore(evaluate(model, valEx, undefined, (k) => liftNeighbours(k, lift)));
    o.log(`lift window ${lift.window} alpha ${lift.alpha}: select ${score.toFixed(4)}`);
    if (!best || score > best.score + 1e-9) best = { lift, score };
  }
  o.log(`neighbour lift: window ${best!.lift.window}, alpha ${best!.lift.alpha}`);
  return best!.lift.window > 0 ? best!.lift : undefined;
}

function calibrate(
  o: TrainRunOptions,
  model: LamrModel,
  valEx: Example[],
  lift: LiftParams | undefined,
  floors: number[],
): ReturnType<typeof calibrateThreshold> {
  const scores = new Map();
  evaluate(model, valEx, scores, lift ? (k) => liftNeighbours(k, lift) : undefined);
  const cal = calibrateThreshold(scores, o.targetRecall ?? 0.9, { floors, distractorWeight: o.distractorWeight });
  o.log(
    `calibration candidates: ${JSON.stringify(cal.candidates.map((c) => [c.docPower, c.relativeFloor, +c.threshold.toFixed(5), +c.goldKeptShare.toFixed(3), +c.distractorKeptShare.toFixed(3)]))}`,
  );
  o.log(
    `threshold ${cal.threshold.toFixed(4)} docPower ${cal.docPower} floor ${cal.relativeFloor}: val recall ${cal.recall.toFixed(3)}, gold chars kept ${cal.goldKeptShare.toFixed(3)}, distractor chars kept ${cal.distractorKeptShare.toFixed(3)}`,
  );
  return cal;
}
