/**
 * The learned judgement of which plain output lines an agent will use: a logistic model over
 * lineFeatures(), fitted on the outputs of the training runs of ../shared/bench/trajectories-dev
 * (a line is used when the agent's next message names one of its rarer words; see
 * scripts/fit-output-model.ts), with the threshold chosen there. Lines the rules already decide
 * (signal, routine, relevant, shown before) are not its business.
 */

import { LINE_FEATURES, lineFeatures } from './lineFeatures.js';
import model from './lineModel.json' with { type: 'json' };
import type { OutputAnalysis } from './pruneOutput.js';

export interface LineModel {
  features: string[];
  weights: number[];
  /** Lines whose probability of use is below this fold. */
  threshold: number;
}

export const LINE_MODEL: LineModel = model;

/** Per line: the model's probability that the agent uses it next. */
export function usedProbabilities(a: Omit<OutputAnalysis, 'seen'>, m: LineModel = LINE_MODEL): Float64Array {
  const F = LINE_FEATURES.length;
  const x = lineFeatures({ lines: a.lines, roles: a.roles, relevant: a.relevant, query: a.query, task: a.task, kind: a.shape.main.kind });
  const p = new Float64Array(a.lines.length);
  for (let i = 0; i < a.lines.length; i++) {
    let z = 0;
    for (let f = 0; f < F; f++) z += m.weights[f] * x[i * F + f];
    p[i] = 1 / (1 + Math.exp(-z));
  }
  return p;
}

/** Per line: 1 when the model expects the agent not to use it (null when the model has no say). */
export function unlikelyLines(a: OutputAnalysis, m: LineModel = LINE_MODEL): Uint8Array | null {
  if (m.weights.length !== LINE_FEATURES.length || !(m.threshold > 0)) return null;
  const p = usedProbabilities(a, m);
  const out = new Uint8Array(p.length);
  for (let i = 0; i < p.length; i++) out[i] = p[i] < m.threshold ? 1 : 0;
  return out;
}
