/**
 * model.json, the header of a model directory: written by training (src/train/pipeline.ts,
 * src/data/adapt.ts through saveModel), read and checked by loadModel and the scorer.
 */
import type { ModelMode } from './lamr.js';
import type { LiftParams } from './lift.js';

/** Weights of the training loss's terms (src/train/lamrLoss.ts); recorded so fine-tuning trains with the same. */
export interface LossWeights {
  /** Interpolation between fused loss (1-lambda) and rubric losses (lambda), LaMR: 0.6. */
  lambda: number;
  /** Rubric weights (semantic, dependency), LaMR: 1.0, 0.7. */
  rubric: [number, number];
  /** Document relevance loss weight. */
  doc: number;
  /** Gate balance (negative entropy of the mean gate) weight, LaMR: 0.002. */
  gate: number;
  /** L2 on the MLP weights. */
  l2: number;
  /**
   * Listwise ranking loss on the fused emissions of a file with labelled lines: cross-entropy
   * between softmax over the file's lines and the uniform distribution over its labelled lines.
   * The CRF losses are per line; a budget keeps the best-ranked lines of a file, so this term
   * teaches the order within a file directly. Not divided by the file's length. Default 0 (off).
   */
  rank?: number;
}

export interface ModelHeader {
  format: string;
  mode: ModelMode;
  /** The line features the first stage was trained on (features/lineFeatures.ts FEATURE_NAMES). */
  features: string[];
  hidden: number;

  // --- what the scorer reads (loadModel checks each)
  /** Default keep threshold calibrated on validation data, in (0, 1]. */
  threshold: number;
  /** keep = marginal * P(file relevant)^docPower; 0 or absent: the marginals alone. */
  docPower?: number;
  /** Lines scoring below this fraction of the file's best are dropped, in [0, 1). */
  relativeFloor?: number;
  /** Neighbour lift applied after the context stage. */
  lift?: LiftParams;
  /** The first stage alone (later stages trained on top of it) has its own calibration. */
  stage1Threshold?: number;
  stage1DocPower?: number;

  // --- where the parameters and the bridge table are (skim-lamr/2)
  /** The weights file (default weights.bin). */
  weights?: string;
  paramCount?: number;
  /** Another directory's bridge table, relative to this one. */
  bridge?: string;

  // --- how it was trained (not read by the scorer)
  /** Which SyntaxIndex the features were computed with during training. */
  syntax?: string;
  createdAt?: string;
  loss?: LossWeights;
  thresholdCalibration?: string;
  seed?: number;
  bestEpoch?: number;
  contextBestEpoch?: number;
  /** Validation metrics of the selected epoch. */
  validation?: unknown;
  /** The model directory a fine-tuned model started from, and how many samples tuned it. */
  fineTunedFrom?: string | null;
  fineTuneSamples?: number;
}

/** The context stage's block in model.json. */
export interface ContextBlock {
  mode: ModelMode;
  features: string[];
  hidden: number;
  /** skim-lamr/1: the parameters as a base64 Float32 blob. */
  params?: string;
  paramCount?: number;
}

/** model.json as stored: the header, the context stage, and (skim-lamr/1) the parameters inline. */
export interface ModelFile extends ModelHeader {
  /** skim-lamr/1: the first stage's parameters as a base64 Float32 blob. */
  params?: string;
  context?: ContextBlock;
}
