/**
 * The training loop: mini-batch Adam over cached examples, validation every epoch (P/R/F1 of the
 * aggregate labels at tau = 0.5, and recall of the labelled lines under 4x/8x character budgets),
 * best-epoch selection on the held-back teacher slice, then threshold calibration.
 */
import { LamrModel, type ModelMode } from '../core/model/lamr.js';
import { Adam } from './adam.js';
import { DISTRACTOR_WEIGHT } from './constants.js';
import { DEFAULT_LOSS, initParams, type LossWeights, lossAndGrad, mulberry32 } from './lamrLoss.js';
import { addPrf, charCosts, type Prf, prf, recallOf, selectTopK } from './metrics.js';
import type { Example } from './prepare.js';

export interface TrainConfig {
  mode: ModelMode;
  hidden: number;
  epochs: number;
  batch: number;
  lr: number;
  seed: number;
  loss: LossWeights;
}

export const DEFAULT_TRAIN: TrainConfig = { mode: 'lamr', hidden: 32, epochs: 8, batch: 16, lr: 0.004, seed: 7, loss: DEFAULT_LOSS };

export interface EvalGroup {
  prf: { p: number; r: number; f1: number };
  recall4: number;
  recall8: number;
  files: number;
  /** Document head: AUC of gold files against the group's distractors (when it has both). */
  docAuc?: number;
}

export interface EpochReport {
  epoch: number;
  loss: number;
  seconds: number;
  val: Record<string, EvalGroup>;
  select: number;
}

/** Validation group of an example: "<source>-<queryKind>" for gold files. */
export function groupOf(e: Example): string {
  return `${e.file.source}/${e.file.queryKind}`;
}

export function evaluate(
  model: LamrModel,
  examples: Example[],
  scoresOut?: Map<Example, { keep: Float64Array; doc: number }>,
  post?: (keep: Float64Array) => Float64Array,
): Record<string, EvalGroup> {
  const acc = new Map<string, { prf: Prf; h4: number; h8: number; tot: number; files: number }>();
  const docs = new Map<string, { gold: number[]; distractor: number[] }>();
  const infer = (e: Example) => {
    const o = model.infer(e.X, e.n);
    if (post) o.keep = post(o.keep);
    return o;
  };
  const docScores = (g: string) => docs.get(g) ?? docs.set(g, { gold: [], distractor: [] }).get(g)!;
  for (const e of examples) {
    if (e.file.role !== 'gold' || e.file.agg.length === 0) {
      const o = infer(e);
      scoresOut?.set(e, { keep: o.keep, doc: o.docScore });
      if (e.file.role === 'distractor') docScores(groupOf(e)).distractor.push(o.docScore);
      continue;
    }
    const out = infer(e);
    scoresOut?.set(e, { keep: out.keep, doc: out.docScore });
    const g = groupOf(e);
    docScores(g).gold.push(out.docScore);
    let a = acc.get(g);
    if (!a) acc.set(g, (a = { prf: { tp: 0, fp: 0, fn: 0 }, h4: 0, h8: 0, tot: 0, files: 0 }));
    addPrf(a.prf, out.keep, e.labels.agg, 0.5);
    const costs = charCosts(e.file.lines);
    let total = 0;
    for (const c of costs) total += c;
    const r4 = recallOf(selectTopK(out.keep, costs, total / 4), e.file.agg);
    const r8 = recallOf(selectTopK(out.keep, costs, total / 8), e.file.agg);
    a.h4 += r4.hit;
    a.h8 += r8.hit;
    a.tot += r4.total;
    a.files++;
  }
  const res: Record<string, EvalGroup> = {};
  for (const [g, a] of [...acc].sort()) {
    const d = docs.get(g);
    res[g] = {
      prf: prf(a.prf),
      recall4: a.h4 / Math.max(1, a.tot),
      recall8: a.h8 / Math.max(1, a.tot),
      files: a.files,
      ...(d?.distractor.length ? { docAuc: auc(d.gold, d.distractor) } : {}),
    };
  }
  return res;
}

/** Probability that a random positive scores above a random negative (ties count half). */
export function auc(pos: number[], neg: number[]): number {
  if (!pos.length || !neg.length) return NaN;
  const all = [...pos.map((v) => [v, 1]), ...neg.map((v) => [v, 0])].sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j][0] === all[i][0]) j++;
    const midRank = (i + j + 1) / 2; // 1-based average rank of the tie block
    for (let k = i; k < j; k++) if (all[k][1] === 1) rankSum += midRank;
    i = j;
  }
  return (rankSum - (pos.length * (pos.length + 1)) / 2) / (pos.length * neg.length);
}

/** Model selection: the held-back teacher slice (issues, goal hints) and the commit val split, at both budgets. */
export function selectionScore(v: Record<string, EvalGroup>): number {
  const parts: number[] = [];
  for (const g of ['teacher/issue', 'teacher/goal', 'commit/commit']) if (v[g]) parts.push((v[g].recall4 + v[g].recall8) / 2);
  if (!parts.length) for (const g of Object.values(v)) parts.push((g.recall4 + g.recall8) / 2);
  return parts.reduce((a, b) => a + b, 0) / Math.max(1, parts.length);
}

export function train(
  train: Example[],
  val: Example[],
  cfg: TrainConfig,
  F: number,
  hooks: { onBatch?: (done: number, total: number, loss: number) => void; onEpoch?: (r: EpochReport) => void; init?: Float64Array },
): { model: LamrModel; reports: EpochReport[]; best: number } {
  const model = new LamrModel(F, cfg.hidden, cfg.mode);
  initParams(model, cfg.seed);
  if (hooks.init) model.p.set(hooks.init);
  const adam = new Adam(model.L.size, cfg.lr);
  const grad = new Float64Array(model.L.size);
  const rand = mulberry32(cfg.seed + 1);
  const order = train.map((_, i) => i);
  const steps = Math.ceil(train.length / cfg.batch) * cfg.epochs;
  let step = 0;
  let bestScore = -1;
  let bestParams = Float64Array.from(model.p);
  let bestEpoch = 0;
  const reports: EpochReport[] = [];
  for (let ep = 1; ep <= cfg.epochs; ep++) {
    const t0 = Date.now();
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    let lossSum = 0;
    let wSum = 0;
    for (let b = 0; b < order.length; b += cfg.batch) {
      grad.fill(0);
      let bw = 0;
      for (let k = b; k < Math.min(order.length, b + cfg.batch); k++) {
        const e = train[order[k]];
        const r = lossAndGrad(model, e.X, e.n, e.labels, grad, e.weight, cfg.loss);
        lossSum += e.weight * ((r.fused + r.rubric) / e.n + r.doc + r.rank);
        wSum += e.weight;
        bw += e.weight;
      }
      if (bw > 0) for (let k = 0; k < grad.length; k++) grad[k] /= bw;
      // linear warm-down of the learning rate to 10%
      adam.lr = cfg.lr * (1 - 0.9 * (step / steps));
      adam.step(model.p, grad, cfg.loss.l2 * 100, model.L.b1);
      step++;
      hooks.onBatch?.(step, steps, lossSum / Math.max(1e-9, wSum));
    }
    const v = evaluate(model, val);
    const sel = selectionScore(v);
    const rep: EpochReport = { epoch: ep, loss: lossSum / Math.max(1e-9, wSum), seconds: (Date.now() - t0) / 1000, val: v, select: sel };
    reports.push(rep);
    hooks.onEpoch?.(rep);
    if (sel > bestScore) {
      bestScore = sel;
      bestParams = Float64Array.from(model.p);
      bestEpoch = ep;
    }
  }
  model.p.set(bestParams);
  return { model, reports, best: bestEpoch };
}

export interface Calibration {
  threshold: number;
  /** Keep score = marginal * docScore^docPower (0: marginals alone). */
  docPower: number;
  /** Lines below this share of their file's best score are dropped too (0: no floor). */
  relativeFloor: number;
  targetRecall: number;
  /** Cost of a kept distractor share against a kept gold share when the candidate was chosen. */
  distractorWeight: number;
  /** At the chosen threshold, on the validation slice: */
  recall: number;
  distractorKeptShare: number;
  goldKeptShare: number;
  files: number;
  /** Kept shares at the target recall for each candidate (docPower, floor). */
  candidates: { docPower: number; relativeFloor: number; threshold: number; distractorKeptShare: number; goldKeptShare: number }[];
}

export const DOC_POWERS = [0, 0.5, 1, 2];
export const RELATIVE_FLOORS = [0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3];
/** How much a kept distractor character costs against a kept gold-file character (see ./constants.ts). */
export { DISTRACTOR_WEIGHT };

export interface CalibrationOptions {
  /** Example sources calibrated on (default: the held-back teacher slice). */
  groups?: string[];
  /** Relative floors tried (default RELATIVE_FLOORS; [0] reproduces the floor-less calibration). */
  floors?: number[];
  /** Cost of a distractor share against a gold share (default DISTRACTOR_WEIGHT). */
  distractorWeight?: number;
}

/**
 * Threshold calibration: for each candidate docPower and relative floor, the largest tau whose
 * micro recall of the aggregate lines on the validation gold files (teacher slice, both query
 * kinds) is still >= targetRecall when a line is kept iff its score reaches both tau and the floor
 * times its file's best score; the candidate that then keeps the fewest characters wins, its cost
 * being the gold share kept plus the distractor share kept times `distractorWeight`.
 */
export function calibrateThreshold(
  scores: Map<Example, { keep: Float64Array; doc: number }>,
  targetRecall = 0.9,
  { groups = ['teacher'], floors = RELATIVE_FLOORS, distractorWeight = DISTRACTOR_WEIGHT }: CalibrationOptions = {},
): Calibration {
  const candidates: Calibration['candidates'] = [];
  let best: Calibration | null = null;
  const cost = (c: Calibration) => distractorWeight * c.distractorKeptShare + c.goldKeptShare;
  // the files of the calibration groups with their line costs: the same for every candidate
  const files = [...scores].filter(([e]) => groups.includes(e.file.source)).map(([e, { keep, doc }]) => ({ e, keep, doc, costs: charCosts(e.file.lines) }));
  let goldChars = 0;
  let distChars = 0;
  for (const { e, costs } of files) {
    const chars = costs.reduce((a, c) => a + c, 0);
    if (e.file.role === 'gold') goldChars += chars;
    else distChars += chars;
  }
  for (const docPower of DOC_POWERS) {
    for (const relativeFloor of floors) {
      // per line: its score and the file's floor; a line can only be kept at or above its floor
      const pos: number[] = [];
      let posTotal = 0;
      const goldLines: { s: number; c: number }[] = [];
      const distLines: { s: number; c: number }[] = [];
      for (const { e, keep, doc, costs } of files) {
        const m = Math.pow(doc, docPower);
        let max = 0;
        for (let i = 0; i < e.n; i++) max = Math.max(max, keep[i] * m);
        const floor = relativeFloor * max;
        // a line under its floor is never kept: score it -1
        const eff = (i: number) => (keep[i] * m >= floor ? keep[i] * m : -1);
        const lines = e.file.role === 'gold' ? goldLines : distLines;
        if (e.file.role === 'gold') {
          for (const i of e.file.agg) {
            posTotal++;
            const v = eff(i);
            if (v >= 0) pos.push(v);
          }
        }
        for (let i = 0; i < e.n; i++) lines.push({ s: eff(i), c: costs[i] });
      }
      const need = Math.ceil(targetRecall * posTotal);
      if (posTotal === 0 || pos.length < need) continue; // this floor alone loses too much
      pos.sort((a, b) => b - a);
      const tau = Math.max(1e-4, pos[Math.max(0, need - 1)]);
      const share = (arr: { s: number; c: number }[], tot: number): number => arr.reduce((a, l) => a + (l.s >= tau ? l.c : 0), 0) / Math.max(1, tot);
      const recall = pos.filter((s) => s >= tau).length / posTotal;
      const cal: Calibration = {
        threshold: tau,
        docPower,
        relativeFloor,
        targetRecall,
        distractorWeight,
        recall,
        distractorKeptShare: share(distLines, distChars),
        goldKeptShare: share(goldLines, goldChars),
        files: files.length,
        candidates,
      };
      candidates.push({ docPower, relativeFloor, threshold: tau, distractorKeptShare: cal.distractorKeptShare, goldKeptShare: cal.goldKeptShare });
      if (!best || cost(cal) < cost(best) - 1e-9) best = cal;
    }
  }
  if (!best) {
    return {
      threshold: 0.5,
      docPower: 0,
      relativeFloor: 0,
      targetRecall,
      distractorWeight,
      recall: 0,
      distractorKeptShare: 0,
      goldKeptShare: 0,
      files: 0,
      candidates,
    };
  }
  return best;
}
