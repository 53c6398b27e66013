/**
 * The read policy: how hard to prune one read in the default (threshold) mode, from what is known
 * when the agent reads. A pruned read that hides the line the agent needed costs a re-read (one
 * more turn, and the whole output after all); a narrow window the agent chose on purpose saves
 * little when pruned and risks most. So the policy leaves a read whole when pruning it is more
 * likely to cost a re-read than to save, and prunes whole files and large outputs harder.
 *
 * The table is fitted on real agent runs (trajectories-dev, training split of runs; see
 * scripts/fit-read-policy.ts and BENCHMARKS.md), not set by hand.
 */

import type { Document } from '../types.js';

/** What kind of read this is: a whole file, a deliberate window of one, or a search. */
export type ReadKind = 'file' | 'window' | 'grep';

export interface ReadFacts {
  kind: ReadKind;
  /** Characters in the read's output. */
  chars: number;
  /** The model's document score for the read (0..1). */
  docScore: number;
  /** The run's task was given next to the read's query (lines are scored against both). */
  hasTask: boolean;
}

/** One row of the policy: reads of this kind with at least `minChars` characters, with or without a task. */
export interface ReadRule {
  kind: ReadKind;
  task: boolean;
  minChars: number;
  /** Reads whose document score is below this are pruned at `lowTauScale`, others at `tauScale`. */
  docSplit: number;
  /** Multiplier of the calibrated τ (higher prunes harder); null leaves the read whole. */
  lowTauScale: number | null;
  tauScale: number | null;
}

export interface ReadDecision {
  /** Multiplier of the calibrated τ, or null: leave the read whole (session memory still applies). */
  tauScale: number | null;
  /** Short description for results and --explain, e.g. "window>=40: whole". */
  label: string;
}

/** Fitted on trajectories-dev (scripts/fit-read-policy.ts). Rows are tried last to first. */
export const READ_POLICY: ReadRule[] = [
  { kind: 'file', task: false, minChars: 0, docSplit: 0, lowTauScale: null, tauScale: null },
  { kind: 'file', task: false, minChars: 2500, docSplit: 0.8, lowTauScale: null, tauScale: 0.5 },
  { kind: 'file', task: false, minChars: 5000, docSplit: 0.971, lowTauScale: null, tauScale: 1 },
  { kind: 'file', task: false, minChars: 10001, docSplit: 0, lowTauScale: 1, tauScale: 1 },
  { kind: 'window', task: false, minChars: 0, docSplit: 0, lowTauScale: null, tauScale: 0.5 },
  { kind: 'window', task: false, minChars: 2500, docSplit: 0.969, lowTauScale: null, tauScale: 1 },
  { kind: 'window', task: false, minChars: 5000, docSplit: 0, lowTauScale: null, tauScale: 0.5 },
  { kind: 'window', task: false, minChars: 10001, docSplit: 0, lowTauScale: 1, tauScale: 1 },
  { kind: 'grep', task: false, minChars: 0, docSplit: 0, lowTauScale: null, tauScale: 1 },
  { kind: 'grep', task: false, minChars: 10001, docSplit: 0, lowTauScale: 1, tauScale: 1 },
  { kind: 'file', task: true, minChars: 0, docSplit: 0, lowTauScale: null, tauScale: null },
  { kind: 'file', task: true, minChars: 2500, docSplit: 0.957, lowTauScale: 1, tauScale: 0.5 },
  { kind: 'file', task: true, minChars: 5000, docSplit: 0, lowTauScale: null, tauScale: 1 },
  { kind: 'file', task: true, minChars: 10001, docSplit: 0, lowTauScale: 1, tauScale: 1 },
  { kind: 'window', task: true, minChars: 0, docSplit: 0, lowTauScale: null, tauScale: 0.5 },
  { kind: 'window', task: true, minChars: 2500, docSplit: 0, lowTauScale: null, tauScale: 1 },
  { kind: 'window', task: true, minChars: 5000, docSplit: 0, lowTauScale: null, tauScale: 1 },
  { kind: 'window', task: true, minChars: 10001, docSplit: 0, lowTauScale: 1, tauScale: 1 },
  { kind: 'grep', task: true, minChars: 0, docSplit: 0, lowTauScale: null, tauScale: 1 },
  { kind: 'grep', task: true, minChars: 10001, docSplit: 0, lowTauScale: 1, tauScale: 1 },
];

export function decideRead(facts: ReadFacts, table: ReadRule[] = READ_POLICY): ReadDecision {
  for (let r = table.length - 1; r >= 0; r--) {
    const rule = table[r];
    if (rule.kind !== facts.kind || rule.task !== facts.hasTask || facts.chars < rule.minChars) continue;
    const low = facts.docScore < rule.docSplit;
    const tauScale = low ? rule.lowTauScale : rule.tauScale;
    const what = tauScale === null ? 'whole' : `tau x${tauScale}`;
    return { tauScale, label: `${rule.kind}${rule.task ? '+task' : ''}>=${rule.minChars}ch${rule.docSplit > 0 ? (low ? ` doc<${rule.docSplit}` : ` doc>=${rule.docSplit}`) : ''}: ${what}` };
  }
  return { tauScale: 1, label: `${facts.kind}: tau x1` };
}

/**
 * Reads longer than this are beyond what the policy was fitted on (the agent harness of the runs
 * cut longer outputs to their head and tail): they get the calibrated threshold.
 */
export const FITTED_CHARS = 10_000;

/** The read is a whole file, a deliberate window of one, or a search. */
export function readKindOf(doc: Document, window?: boolean): ReadKind {
  if (doc.shape === 'grep' || doc.segments.length > 1) return 'grep';
  if (window) return 'window';
  const first = doc.lines.find((l) => l.lineNo !== null)?.lineNo ?? 1;
  return first > 1 ? 'window' : 'file';
}
