/**
 * The learned scorer: features -> LaMR model -> per-line keep marginals, Viterbi path, gate split
 * and document score. `createLearnedScorer(dir)` returns null when no weights are there, so callers
 * can fall back to the heuristic scorer.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NUM_FEATURES } from '../features/columns.js';
import { contextFeatures, withContext } from '../features/contextFeatures.js';
import { lineFeatures } from '../features/lineFeatures.js';
import { analyzeQuery, type QueryInfo } from '../features/queryAnalysis.js';
import type { LineScores, ScoreInput, Scorer } from '../types.js';
import { type LoadedModel, loadModel } from './io.js';
import { liftNeighbours } from './lift.js';

export interface LearnedScorer extends Scorer {
  /** Default keep threshold calibrated on validation data. */
  readonly threshold: number;
  /** Same value, under the name prune() looks for. */
  readonly defaultThreshold: number;
  readonly relativeFloor: number;
  readonly loaded: LoadedModel;
}

export interface ScorerOptions {
  /**
   * Use what training added after the first stage: the second (auto-context) stage, the neighbour
   * lift and the relative floor (default true; false = the first stage alone, with its own calibration).
   */
  contextStage?: boolean;
}

export function scorerFromModel(loaded: LoadedModel, name = 'learned', opts: ScorerOptions = {}): LearnedScorer {
  const { model, bridge, header } = loaded;
  const full = opts.contextStage !== false;
  const context = full ? loaded.context : undefined;
  // the first stage alone has its own calibration when later stages were trained on top of it
  const stage1Threshold = full ? undefined : header.stage1Threshold;
  const stage1Only = stage1Threshold !== undefined;
  const threshold = stage1Threshold ?? header.threshold;
  const docPower = (stage1Only ? header.stage1DocPower : header.docPower) ?? 0;
  const lift = full ? header.lift : undefined;
  const relativeFloor = full ? (header.relativeFloor ?? 0) : 0;
  let lastQuery: QueryInfo | undefined;
  return {
    name,
    threshold,
    defaultThreshold: threshold,
    relativeFloor,
    loaded,
    score(input: ScoreInput): LineScores {
      const n = input.lines.length;
      if (n === 0) return { keep: new Float64Array(0), docScore: 0, gateSemantic: new Float64Array(0), viterbi: new Uint8Array(0) };
      // segments of one request share the query: analyze it once
      if (!lastQuery || lastQuery.text !== input.query) lastQuery = analyzeQuery(input.query, bridge);
      const X = lineFeatures(input, { bridge }, lastQuery);
      let out = model.infer(X, n, false, !context);
      if (context) {
        // second stage: the same features plus what the first stage thinks of each line's surroundings
        const C = contextFeatures(out.keep, out.docScore, input.syntax, n);
        out = context.infer(withContext(X, NUM_FEATURES, C, n), n);
      }
      if (lift) out.keep = liftNeighbours(out.keep, lift);
      // keep = P(line kept | file relevant) * P(file relevant)^docPower (calibrated; 0 = marginals alone)
      if (docPower > 0) {
        const m = Math.pow(out.docScore, docPower);
        for (let i = 0; i < n; i++) out.keep[i] *= m;
      }
      return { keep: out.keep, docScore: out.docScore, gateSemantic: out.gateSemantic, viterbi: out.viterbi };
    },
  };
}

/** Load the scorer from a model directory; null when the weights are missing, unreadable or invalid. */
export function createLearnedScorer(modelDir?: string, opts: ScorerOptions = {}): LearnedScorer | null {
  return loadLearnedScorer(modelDir, opts).scorer;
}

/**
 * Load the scorer from a model directory (default: the shipped one). `problem` says why there is no
 * scorer: weights missing, or present but unusable (truncated or binary files, NaN weights, a
 * threshold outside (0, 1], a different feature set). Callers fall back on it visibly.
 */
export function loadLearnedScorer(modelDir?: string, opts: ScorerOptions = {}): { scorer: LearnedScorer | null; problem?: string; missing?: boolean } {
  const dir = modelDir ?? defaultModelDir();
  if (!dir || !existsSync(join(dir, 'model.json')))
    return { scorer: null, missing: true, problem: `no model weights found${dir ? ` in ${dir}` : ' (models/default is not installed)'}` };
  try {
    return { scorer: scorerFromModel(loadModel(dir), 'learned', opts) };
  } catch (err) {
    return { scorer: null, problem: (err as Error).message };
  }
}

/** models/default of this package, found from this module's location (works from src/ via tsx and from dist/). */
export function defaultModelDir(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 6; k++) {
    const cand = join(dir, 'models', 'default');
    if (existsSync(join(cand, 'model.json'))) return cand;
    if (existsSync(join(dir, 'package.json'))) return null;
    dir = dirname(dir);
  }
  return null;
}

let cached: ReturnType<typeof loadLearnedScorer> | undefined;

/** The shipped default model (loaded once), or null when it is not installed or unusable. */
export function loadDefaultScorer(): LearnedScorer | null {
  return loadDefault().scorer;
}

/** The shipped default model (loaded once), with the reason when there is none. */
export function loadDefault(): ReturnType<typeof loadLearnedScorer> {
  cached ??= loadLearnedScorer();
  return cached;
}
