/**
 * Fine-tune the learned skimmer on one repository's commit samples and compare it with the model
 * it started from on that repository's held-back commits. Built on the trainer's exported pieces
 * (prepareFiles, buildExamples, train, the evaluator); what differs from `skim train --init`:
 *  - the feature bridge of the init model is kept by default (`bridge: 'init'`): a bridge refitted
 *    on a few hundred commit messages is much thinner than the shipped one;
 *  - epochs are selected on a "tune" slice of the repository's own train commits (by commit
 *    hash), so the held-back val commits are used for the before/after comparison only;
 *  - the keep threshold is re-set to the init model's operating point (same recall on the tune slice);
 *  - a two-stage init has its context stage fine-tuned after its first stage; the lift and the
 *    relative floor carry over; each stage keeps the init's weights unless it beats them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BridgeTable, mergeBridges } from '../core/features/bridge.js';
import { NUM_FEATURES } from '../core/features/columns.js';
import { NUM_CONTEXT_FEATURES } from '../core/features/contextFeatures.js';
import { scorerFromModel } from '../core/model/index.js';
import { loadModel, saveModel } from '../core/model/io.js';
import type { LamrModel } from '../core/model/lamr.js';
import { type LiftParams, liftNeighbours } from '../core/model/lift.js';
import { createHeuristicScorer } from '../core/score/heuristic.js';
import type { Scorer } from '../core/types.js';
import { type CommitFilterStats, type CommitRecord, commitFile, commitRejection, hash32, type LabeledFile, readJsonl, splitLines } from '../train/datasets.js';
import { evaluateSets, type Row } from '../train/evaluate.js';
import { type Bridges, buildExamples, contextExamples, DEFAULT_WEIGHTS, type Example, fitBridges, prepareFiles } from '../train/prepare.js';
import { loadSyntaxSource } from '../train/syntaxSource.js';
import { DEFAULT_TRAIN, evaluate, train } from '../train/trainer.js';

export interface RepoSamples {
  train: LabeledFile[];
  val: LabeledFile[];
  filter: CommitFilterStats;
}

/** Commit samples (mined or from commits.jsonl.gz) of one repository, through the trainer's noise filter. */
export async function readRepoSamples(path: string, repo?: string): Promise<RepoSamples> {
  const filter: CommitFilterStats = { total: 0, noLabels: 0, vagueMessage: 0, hugeDiff: 0, tooShort: 0, kept: 0 };
  const out: RepoSamples = { train: [], val: [], filter };
  for await (const r of readJsonl(path)) {
    const rec = r as unknown as CommitRecord;
    if (repo && rec.repo !== repo) continue;
    filter.total++;
    const lines = splitLines(rec.code);
    const why = commitRejection(rec, lines.length);
    if (why) {
      filter[why]++;
      continue;
    }
    filter.kept++;
    const agg = [...new Set([...rec.gold_lines, ...rec.anchor_lines])]
      .map((x) => x - 1)
      .filter((x) => x >= 0 && x < lines.length)
      .sort((a, b) => a - b);
    const split = rec.split === 'val' ? 'val' : 'train';
    out[split].push(commitFile(rec, lines, agg, split));
  }
  return out;
}

const commitOf = (f: LabeledFile): string => f.id.slice(f.id.indexOf('@') + 1, f.id.lastIndexOf(':'));

export interface FineTuneOptions {
  train: LabeledFile[];
  /** Model directory to start from; undefined = train from scratch. */
  init?: string;
  out: string;
  epochs?: number;
  lr?: number;
  seed?: number;
  /** Cap on training samples (hash-sampled). */
  maxTrain?: number;
  /**
   * The bridge of the fine-tuned model: the init model's as is, `refit` on the repository's
   * samples alone, or `merge`d (the init table extended with the repository's).
   */
  bridge?: 'init' | 'refit' | 'merge';
  /**
   * Bridge for the features of the fine-tuning examples (default: the model's own bridge). It must
   * not have been fitted on these examples' labels, or the bridge features look stronger in training
   * than at inference (the trainer cross-fits for the same reason): when the init model's bridge saw
   * them (the shared data), pass one fitted without this repository.
   */
  featureBridge?: BridgeTable;
  log?: (m: string) => void;
  progress?: (done: number, total: number) => void;
}

export interface FineTuneResult {
  out: string;
  fit: number;
  tune: number;
  bestEpoch: number;
  epochs: { epoch: number; loss: number; tuneR4: number; tuneR8: number; seconds: number }[];
  threshold: number;
  seconds: number;
}

/**
 * The context stage, fine-tuned on the repository after its first stage: its inputs are the
 * fine-tuned first stage's marginals. Epochs are chosen on the tune slice with the init's lift
 * applied; when none beats the init's own context stage, that one is kept.
 */
function fineTuneContext(
  initContext: LamrModel,
  stage1: LamrModel,
  fitEx: Example[],
  tuneEx: Example[],
  cfg: typeof DEFAULT_TRAIN,
  lift: LiftParams | undefined,
  log: (m: string) => void,
): LamrModel {
  const fitCtx = contextExamples(stage1, fitEx);
  const tuneCtx = contextExamples(stage1, tuneEx);
  const post = lift ? (k: Float64Array) => liftNeighbours(k, lift) : undefined;
  const score = (m: LamrModel) => {
    const g = evaluate(m, tuneCtx, undefined, post)['commit/commit'];
    return { r4: g?.recall4 ?? 0, r8: g?.recall8 ?? 0 };
  };
  const before = score(initContext);
  log(`context stage, epoch 0 (init): tune R@4x ${before.r4.toFixed(3)} R@8x ${before.r8.toFixed(3)}`);
  // the context stage may be wider or narrower than the first (`skim train --context-hidden`)
  const { model } = train(fitCtx, tuneCtx, { ...cfg, seed: cfg.seed + 1, hidden: initContext.H }, NUM_FEATURES + NUM_CONTEXT_FEATURES, { init: initContext.p });
  model.p.set(Float64Array.from(new Float32Array(model.p)));
  const after = score(model);
  log(`context stage, fine-tuned: tune R@4x ${after.r4.toFixed(3)} R@8x ${after.r8.toFixed(3)}`);
  if (after.r4 + after.r8 > before.r4 + before.r8) return model;
  log("the fine-tuned context stage does not beat the init's on the tune slice: the init's is kept");
  return initContext;
}

/** Fine-tune (or train from scratch) on commit samples; writes a model directory to `out`. */
export async function fineTune(o: FineTuneOptions): Promise<FineTuneResult> {
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const seed = o.seed ?? DEFAULT_TRAIN.seed;
  const init = o.init ? loadModel(o.init) : null;
  let pool = [...o.train].sort((a, b) => hash32(`ft:${a.id}`) - hash32(`ft:${b.id}`) || (a.id < b.id ? -1 : 1));
  if (o.maxTrain !== undefined) pool = pool.slice(0, o.maxTrain);
  // the tune slice (epoch selection, threshold) holds whole commits, about 12% of them
  const isTune = (f: LabeledFile) => hash32(`tune:${commitOf(f)}`) % 100 < 12;
  let fit = pool.filter((f) => !isTune(f));
  let tune = pool.filter(isTune);
  if (tune.length < 10 || fit.length < 10) {
    log(`only ${pool.length} training samples: selecting epochs on the training samples themselves`);
    fit = pool;
    tune = pool;
  }
  const asVal = (f: LabeledFile): LabeledFile => ({ ...f, split: 'val' });
  const syntax = await loadSyntaxSource();
  const { prepared } = await prepareFiles([...fit, ...tune.map(asVal)], syntax);
  const bridgeMode = init ? (o.bridge ?? 'init') : 'refit';
  let bridges: Bridges;
  if (init && bridgeMode === 'init') bridges = { full: init.bridge, folds: [init.bridge, init.bridge], samples: 0 };
  else if (init && bridgeMode === 'merge') {
    // cross-fitted like the trainer: a training example's features never use a table fitted on its own labels
    const own = fitBridges(prepared);
    bridges = {
      full: mergeBridges(init.bridge, own.full),
      folds: [mergeBridges(init.bridge, own.folds[0]), mergeBridges(init.bridge, own.folds[1])],
      samples: own.samples,
    };
  } else bridges = fitBridges(prepared);
  const featureBridges: Bridges = o.featureBridge ? { full: o.featureBridge, folds: [o.featureBridge, o.featureBridge], samples: 0 } : bridges;
  const examples = buildExamples(prepared, featureBridges, DEFAULT_WEIGHTS);
  const fitEx = examples.filter((e) => e.file.split === 'train');
  const tuneEx = examples.filter((e) => e.file.split === 'val');
  const hidden = init?.model.H ?? DEFAULT_TRAIN.hidden;
  const mode = init?.model.mode ?? DEFAULT_TRAIN.mode;
  // fine-tune with the loss the init model was trained with (older models carry none: the default)
  const loss = init?.header.loss ? { ...DEFAULT_TRAIN.loss, ...init.header.loss } : DEFAULT_TRAIN.loss;
  const cfg = {
    ...DEFAULT_TRAIN,
    loss,
    seed,
    mode,
    hidden,
    epochs: o.epochs ?? (init ? 4 : DEFAULT_TRAIN.epochs),
    lr: o.lr ?? (init ? DEFAULT_TRAIN.lr / 4 : DEFAULT_TRAIN.lr),
  };
  log(
    `${init ? `fine-tuning ${o.init}` : 'training from scratch'} (${mode}, H=${hidden}, lr ${cfg.lr}, ${cfg.epochs} epochs, bridge ${bridgeMode === 'init' ? 'of the init model' : bridgeMode === 'merge' ? `of the init model extended with ${bridges.samples} samples` : `refitted on ${bridges.samples} samples`}) on ${fitEx.length} samples, selecting on ${tuneEx.length}`,
  );
  const epochs: FineTuneResult['epochs'] = [];
  if (init) {
    const g0 = evaluate(init.model, tuneEx)['commit/commit'];
    epochs.push({ epoch: 0, loss: NaN, tuneR4: g0?.recall4 ?? 0, tuneR8: g0?.recall8 ?? 0, seconds: 0 });
    log(`epoch 0 (init): tune R@4x ${(g0?.recall4 ?? 0).toFixed(3)} R@8x ${(g0?.recall8 ?? 0).toFixed(3)}`);
  }
  const { model, best } = train(fitEx, tuneEx, cfg, NUM_FEATURES, {
    init: init?.model.p,
    onBatch: (d, total) => o.progress?.(d, total),
    onEpoch: (r) => {
      const g = r.val['commit/commit'];
      epochs.push({ epoch: r.epoch, loss: r.loss, tuneR4: g?.recall4 ?? 0, tuneR8: g?.recall8 ?? 0, seconds: r.seconds });
      log(
        `epoch ${r.epoch}: loss ${r.loss.toFixed(4)}, tune R@4x ${(g?.recall4 ?? 0).toFixed(3)} R@8x ${(g?.recall8 ?? 0).toFixed(3)} (${r.seconds.toFixed(1)}s)`,
      );
    },
  });
  // no fine-tuned epoch beats the init model on the tune slice: keep the init weights
  const mean = (e: { tuneR4: number; tuneR8: number }) => (e.tuneR4 + e.tuneR8) / 2;
  const e0 = epochs.find((e) => e.epoch === 0);
  const eBest = epochs.find((e) => e.epoch === best);
  let bestEpoch = best;
  if (init && e0 && eBest && mean(e0) >= mean(eBest)) {
    log('no epoch beats the init model on the tune slice: its weights are kept');
    model.p.set(init.model.p);
    bestEpoch = 0;
  }
  model.p.set(Float64Array.from(new Float32Array(model.p))); // what ships is float32
  const context = init?.context ? fineTuneContext(init.context, model, fitEx, tuneEx, cfg, init.header.lift, log) : undefined;
  const docPower = typeof init?.header.docPower === 'number' ? init.header.docPower : 0;
  const threshold = init ? operatingPoint(init, { header: { ...init.header, docPower }, model, bridge: bridges.full, context }, prepared, log) : 0.5;
  mkdirSync(o.out, { recursive: true });
  saveModel(
    o.out,
    model,
    bridges.full,
    {
      // what the init model does after its first stage (context stage, lift, floor) carries over
      ...(init?.header.lift ? { lift: init.header.lift } : {}),
      ...(init?.header.relativeFloor !== undefined ? { relativeFloor: init.header.relativeFloor } : {}),
      threshold: Math.round(threshold * 1e5) / 1e5,
      docPower,
      loss: cfg.loss,
      thresholdCalibration: init
        ? `the init model's recall at its threshold on the tune slice of the fine-tuning commits`
        : 'default 0.5 (no calibration data)',
      syntax: syntax.name,
      createdAt: new Date().toISOString(),
      seed,
      bestEpoch,
      fineTunedFrom: o.init ?? null,
      fineTuneSamples: fit.length,
    },
    context,
  );
  const res: FineTuneResult = { out: o.out, fit: fit.length, tune: tune.length, bestEpoch, epochs, threshold, seconds: (Date.now() - t0) / 1000 };
  return res;
}

/**
 * The threshold that keeps the init model's operating point: the fine-tuned scorer's threshold at
 * which it keeps as many of the tune slice's labelled lines as the init model did at its own.
 */
function operatingPoint(
  init: ReturnType<typeof loadModel>,
  tuned: Parameters<typeof scorerFromModel>[0],
  prepared: Awaited<ReturnType<typeof prepareFiles>>['prepared'],
  log: (m: string) => void,
): number {
  let threshold = init.header.threshold;
  const before = scorerFromModel(init);
  const after = scorerFromModel(tuned);
  const pos0: number[] = [];
  const pos1: number[] = [];
  for (const p of prepared.filter((x) => x.file.split === 'val')) {
    const input = { query: p.file.query, lines: p.file.lines, syntax: p.syntax, language: p.file.lang, path: p.file.path };
    const k0 = before.score(input).keep;
    const k1 = after.score(input).keep;
    for (const i of p.file.agg) {
      pos0.push(k0[i]);
      pos1.push(k1[i]);
    }
  }
  const recall0 = pos0.filter((s) => s >= threshold).length / Math.max(1, pos0.length);
  pos1.sort((a, b) => b - a);
  const k = Math.min(pos1.length - 1, Math.max(0, Math.ceil(recall0 * pos1.length) - 1));
  if (pos1.length) threshold = Math.max(1e-4, pos1[k]);
  log(`threshold ${threshold.toFixed(4)} (init ${init.header.threshold.toFixed(4)}): tune-slice recall ${recall0.toFixed(3)} kept`);
  return threshold;
}

export interface Comparison {
  files: number;
  labelled: number;
  before: { name: string; r4: number; r8: number };
  after: { name: string; r4: number; r8: number };
  better: boolean;
  rows: Row[];
}

/**
 * Recall of gold ∪ anchor lines at 4x and 8x (the evaluator's top-k under a character budget,
 * the unit of `skim model-eval` and the trainer's validation) for the base scorer and the new model.
 */
export async function compareOnVal(val: LabeledFile[], base: { name: string; scorer: Scorer }, adaptedDir: string): Promise<Comparison> {
  const adapted = scorerFromModel(loadModel(adaptedDir), 'adapted');
  const rows = await evaluateSets([{ name: 'repo-val', files: val }], [base, { name: 'adapted', scorer: adapted }]);
  const [b, a] = rows;
  const mean = (r: Row) => (r.topk4 + r.topk8) / 2;
  return {
    files: b.goldFiles,
    labelled: b.labelled,
    before: { name: base.name, r4: b.topk4, r8: b.topk8 },
    after: { name: 'adapted', r4: a.topk4, r8: a.topk8 },
    better: mean(a) > mean(b) + 1e-9,
    rows,
  };
}

/** The scorer a fine-tune is compared against: the init model, or the heuristic when training from scratch. */
export function baseScorer(init?: string): { name: string; scorer: Scorer } {
  if (init) return { name: 'shipped', scorer: scorerFromModel(loadModel(init), 'shipped') };
  return { name: 'heuristic', scorer: createHeuristicScorer() };
}

export function writeReport(dir: string, report: unknown): void {
  writeFileSync(join(dir, 'adapt-report.json'), JSON.stringify(report, null, 1) + '\n');
}
