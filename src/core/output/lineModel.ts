/**
 * The learned judgement of which plain output lines an agent will use: small gradient-boosted
 * trees over lineFeatures() (interactions matter: a number in a script's output is not a number in
 * a listing), fitted on the outputs of the training runs of ../shared/bench/trajectories-dev (a
 * line is used when the agent's next message names one of its rarer words; see
 * scripts/fit-output-model.ts), with the threshold chosen there by cross-validated net saving of
 * whole runs. Lines the rules already decide (signal, routine, relevant, shown before) are not its
 * business.
 */

import { commandFamily, LINE_FEATURES, lineFeatures } from './lineFeatures.js';
import model from './lineModel.json' with { type: 'json' };
import type { OutputAnalysis } from './pruneOutput.js';

/** One regression tree, as parallel arrays of nodes (node 0 the root; feature -1 marks a leaf). */
export interface LineTree {
  feature: number[];
  /** An inner node sends a line left when its feature is <= this. */
  split: number[];
  left: number[];
  right: number[];
  /** A leaf's contribution to the log-odds. */
  value: number[];
}

export interface LineModel {
  features: string[];
  /** The log-odds every line starts from. */
  base: number;
  trees: LineTree[];
  /**
   * A line folds when its probability of use is below threshold x its characters / (context + the
   * output's characters): losing a used line costs the whole output again and a turn over the
   * context, folding saves only the line, so a line must be the less likely used the larger its
   * output and the agent's context are.
   */
  threshold: number;
  /** The context a lost output costs a turn over, per turn the output is carried (characters), before the session's share. */
  contextChars: number;
  /** The threshold's factor for each command family (commandFamily()): 0 leaves the family to the rules. */
  familyScale: number[];
  /**
   * The context grows with the run: a loss late in it costs a turn over more than a loss early on.
   * The context is contextChars + this many characters per line the session has shown
   * (OutputMemory's size.lines); absent or 0, contextChars alone.
   */
  charsPerShownLine?: number;
  /** Without a session: the lines a session had shown at the median output of the fit's runs. */
  typicalShownLines?: number;
}

export const LINE_MODEL: LineModel = model;

/** The log-odds the trees give one row of features. */
export function treeScore(m: Pick<LineModel, 'base' | 'trees'>, x: ArrayLike<number>, offset = 0): number {
  let z = m.base;
  for (const t of m.trees) {
    let k = 0;
    while (t.feature[k] >= 0) k = x[offset + t.feature[k]] <= t.split[k] ? t.left[k] : t.right[k];
    z += t.value[k];
  }
  return z;
}

type Analysed = Omit<OutputAnalysis, 'seen'>;

/** lineFeatures() of an analysed output (of the lines `rows` marks, when given). */
export function analysedFeatures(a: Analysed, rows?: Uint8Array): Float64Array {
  return lineFeatures({
    lines: a.lines,
    roles: a.roles,
    relevant: a.relevant,
    query: a.query,
    task: a.task,
    command: a.command,
    kind: a.shape.main.kind,
    rows,
  });
}

/** Per line: the model's probability that the agent uses it next (of the lines `rows` marks, when given; 0 for the rest). */
export function usedProbabilities(a: Analysed, m: LineModel = LINE_MODEL, rows?: Uint8Array): Float64Array {
  const F = LINE_FEATURES.length;
  const x = analysedFeatures(a, rows);
  const p = new Float64Array(a.lines.length);
  for (let i = 0; i < a.lines.length; i++) if (!rows || rows[i]) p[i] = 1 / (1 + Math.exp(-treeScore(m, x, i * F)));
  return p;
}

/** A model fitted on other features than these (an old lineModel.json) has no say. */
function fits(m: LineModel): boolean {
  return m.features.length === LINE_FEATURES.length && m.features.every((f, i) => f === LINE_FEATURES[i]) && m.trees.length > 0 && m.threshold > 0;
}

/**
 * Per line: 1 when the model expects the agent not to use it (null when the model has no say).
 * Only the lines `rows` marks are judged: planFolds() asks about the plain lines its rules leave
 * undecided. `shownLines`: how many lines the session has shown (absent without a session).
 */
export function unlikelyLines(a: Analysed, m: LineModel, rows: Uint8Array, shownLines?: number): Uint8Array | null {
  if (!fits(m)) return null;
  const p = usedProbabilities(a, m, rows);
  let chars = 0;
  for (const l of a.lines) chars += l.length + 1;
  const context = m.contextChars + (m.charsPerShownLine ?? 0) * (shownLines ?? m.typicalShownLines ?? 0);
  const threshold = m.threshold * (m.familyScale[commandFamily(a.command)] ?? 1);
  const out = new Uint8Array(p.length);
  for (let i = 0; i < p.length; i++) out[i] = rows[i] && p[i] < (threshold * (a.lines[i].length + 1)) / (context + chars) ? 1 : 0;
  return out;
}
