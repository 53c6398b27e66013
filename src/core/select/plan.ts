/**
 * Plan stage, between scoring and selection: the read policy (default threshold mode) says how
 * hard to prune this read, or not at all; files far below the best one collapse and pinned lines
 * go first in the scores selection ranks by. Decides the selection strategy; may decide the input
 * comes back whole.
 */

import { round4 } from '../pipeline/round.js';
import type { Ingested, PruneJob, ScoredLines, SelectionPlan, Whole } from '../pipeline/types.js';
import { decideRead, type ReadDecision, readKindOf } from '../policy/readPolicy.js';
import type { Document } from '../types.js';

/** In multi-file input, files whose best line scores below this share of the best file's collapse. */
export const COLLAPSE_BELOW = 0.25;
/** Keep probability given to pinned lines: above any threshold, first in any budget order. */
export const PINNED = 2;

export function planSelection(job: PruneJob, input: Ingested, scored: ScoredLines): SelectionPlan | Whole {
  const { doc, mode, keepAll } = input;
  // Scores that are not finite decide nothing (the diagnostic says so): back whole. A budget,
  // which must hold, ranks by the heuristic's scores instead.
  if (scored.nonFinite && mode.kind === 'threshold') return { kind: 'whole', score: 1 };
  if (keepAll) return { kind: 'plan', strategy: 'keep-all', why: keepAll.why, decision: null };
  if (mode.kind === 'budget') return { kind: 'plan', strategy: 'budget', decision: null };
  // The read policy (default threshold mode only): how hard to prune this read, or not at all.
  const defaultMode = mode.tau.kind === 'calibrated';
  const decision: ReadDecision | null = defaultMode ? decideRead(readFacts(job, doc), job.readPolicy) : null;
  if (decision && decision.tauScale === null) {
    const extra = { scorer: job.scorer.name, policy: decision.label };
    // what the session has seen still collapses: the rest comes back
    if (!doc.seen) return { kind: 'whole', score: round4(scored.docScore), extra };
    return { kind: 'plan', strategy: 'keep-all', decision };
  }
  return { kind: 'plan', strategy: 'threshold', decision };
}

/**
 * The scores selection ranks by: the scorer's, with weak files collapsed and pinned lines pinned.
 * A copy: the scorer's scores stay as they were.
 */
export function selectionScores(doc: Document, scored: ScoredLines, pins: readonly number[]): ScoredLines {
  const probs = scored.probs.slice();
  collapseWeakFiles(doc, probs);
  pinLines(doc, probs, pins);
  return { ...scored, probs };
}

/**
 * Multi-file input (grep over many files, ==> headers): a file far below the best one collapses
 * to its marker, which names it, its line range and (for grep) its match count.
 */
export function collapseWeakFiles(doc: Document, probs: Float64Array): void {
  if (doc.segments.length <= 1) return;
  const segScores = doc.segments.map((seg) => seg.lines.reduce((m, i) => Math.max(m, probs[i]), 0));
  const best = Math.max(...segScores);
  doc.segments.forEach((seg, s) => {
    if (segScores[s] < COLLAPSE_BELOW * best) for (const i of seg.lines) probs[i] = 0;
  });
}

/** Pinned lines (1-based input lines; layout lines cannot be pinned) score PINNED. */
export function pinLines(doc: Document, probs: Float64Array, pins: readonly number[]): void {
  for (const i of pinnedIndexes(doc, pins)) probs[i] = PINNED;
}

/** The input lines (0-based) `pins` (1-based) pins: none past the end, no layout line. */
export function pinnedIndexes(doc: Document, pins: readonly number[]): number[] {
  return pins.filter((line) => line >= 1 && line <= doc.lines.length && doc.lines[line - 1].segment !== -1).map((line) => line - 1);
}

function readFacts(job: PruneJob, doc: Document) {
  const { session } = job;
  return {
    kind: readKindOf(doc, job.window),
    chars: job.code.length,
    hasTask: job.task !== '',
    priorReads: session?.readsOf(job.path) ?? 0,
    readIndex: session?.readCount ?? 0,
  };
}
