/**
 * The learned scorer: features -> LaMR model -> per-line keep marginals, Viterbi path, gate split
 * and document score. `createLearnedScorer(dir)` returns null when no weights are there, so callers
 * can fall back to the heuristic scorer.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contextFeatures, withContext } from '../features/contextFeatures.js';
import { analyzeQuery, lineFeatures, NUM_FEATURES, type QueryInfo } from '../features/lineFeatures.js';
import type { LineScores, ScoreInput, Scorer } from '../types.js';
import { type LoadedModel, loadModel, modelExists } from './io.js';

export interface LearnedScorer extends Scorer {
  /** Default keep threshold calibrated on validation data. */
  readonly threshold: number;
  /** Same value, under the name prune() looks for. */
  readonly defaultThreshold: number;
  readonly loaded: LoadedModel;
}

export interface ScorerOptions {
  /** Use the second (auto-context) stage when the model has one (default true; false = ablation). */
  contextStage?: boolean;
}

export function scorerFromModel(loaded: LoadedModel, name = 'learned', opts: ScorerOptions = {}): LearnedScorer {
  const { model, bridge, header } = loaded;
  const context = opts.contextStage === false ? undefined : loaded.context;
  const threshold = context || !loaded.context ? header.threshold : Number(header.stage1Threshold ?? header.threshold);
  const docPower = Number((context || !loaded.context ? header.docPower : header.stage1DocPower ?? header.docPower) ?? 0);
  const ctx = { bridge };
  let lastQuery: QueryInfo | undefined;
  return {
    name,
    threshold,
    defaultThreshold: threshold,
    loaded,
    score(input: ScoreInput): LineScores {
      const n = input.lines.length;
      if (n === 0) return { keep: new Float64Array(0), docScore: 0, gateSemantic: new Float64Array(0), viterbi: new Uint8Array(0) };
      // segments of one request share the query: analyze it once
      if (!lastQuery || lastQuery.text !== input.query) lastQuery = analyzeQuery(input.query, bridge);
      const X = lineFeatures(input, ctx, lastQuery);
      let out = model.infer(X, n);
      if (context) {
        // second stage: the same features plus what the first stage thinks of each line's surroundings
        const C = contextFeatures(out.keep, out.docScore, input.syntax, n);
        out = context.infer(withContext(X, NUM_FEATURES, C, n), n);
      }
      // keep = P(line kept | file relevant) * P(file relevant)^docPower (calibrated; 0 = marginals alone)
      if (docPower > 0) {
        const m = Math.pow(out.docScore, docPower);
        for (let i = 0; i < n; i++) out.keep[i] *= m;
      }
      return { keep: out.keep, docScore: out.docScore, gateSemantic: out.gateSemantic, viterbi: out.viterbi };
    },
  };
}

/** Load the scorer from a model directory; null when the weights are missing or unreadable. */
export function createLearnedScorer(modelDir?: string, opts: ScorerOptions = {}): LearnedScorer | null {
  const dir = modelDir ?? defaultModelDir();
  if (!dir || !modelExists(dir)) return null;
  try {
    return scorerFromModel(loadModel(dir), 'learned', opts);
  } catch {
    return null;
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

let cached: LearnedScorer | null | undefined;

/** The shipped default model (loaded once), or null when it is not installed. */
export function loadDefaultScorer(): LearnedScorer | null {
  if (cached === undefined) cached = createLearnedScorer();
  return cached;
}
