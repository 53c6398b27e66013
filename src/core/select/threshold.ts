/**
 * Threshold selection: keep the lines whose keep probability reaches τ (the caller's, the
 * caller's on the relative scale, or the scorer's calibrated τ scaled by the read policy), raised
 * per file by the scorer's relative floor; then repair. Without a budget there is no reason to
 * drop what the scorer chose: when the repaired output cannot be made to parse, the selection is
 * shown unrepaired, and failing that the input comes back whole.
 */
import { diagnostic } from '../diagnostics.js';
import { round4 } from '../pipeline/round.js';
import type { PruneJob, ScoredLines, Selection, TauRule, Whole } from '../pipeline/types.js';
import type { ReadDecision } from '../policy/readPolicy.js';
import type { Repairer } from '../repair/repairer.js';
import { HEURISTIC_THRESHOLD } from '../score/heuristic.js';
import type { Document } from '../types.js';
import { segmentThresholds, selectByThreshold } from './select.js';

export function selectAboveThreshold(
  job: PruneJob,
  doc: Document,
  scored: ScoredLines,
  rule: TauRule,
  decision: ReadDecision | null,
  repairer: Repairer,
): Selection | Whole {
  const { scorer } = job;
  const { probs } = scored;
  const docScore = round4(scored.docScore);
  const base = scorer.defaultThreshold ?? HEURISTIC_THRESHOLD;
  // a threshold that is not a probability would decide everything (NaN, 5) or nothing: fail open
  if (!(base > 0 && base <= 1) && rule.kind !== 'given') {
    const why = diagnostic('scorer-threshold-unusable', `scorer ${scorer.name} has no usable threshold (${base}): returned unchanged`);
    return { kind: 'whole', why, score: docScore };
  }
  const tau = tauOf(rule, base, decision);
  // the calibrated relative floor goes with the calibrated threshold, not with a caller's own
  const floor = rule.kind !== 'given' && Number.isFinite(scorer.relativeFloor) ? (scorer.relativeFloor ?? 0) : 0;
  const thresholdInfo = { threshold: tau, calibratedThreshold: base };
  const seeds = selectByThreshold(
    probs,
    segmentThresholds(
      probs,
      doc.segments.map((s) => s.lines),
      tau,
      floor,
    ),
  );
  // Lines the session has seen are never seeds (pinned ones are): what repair needs of them still comes back.
  for (let i = 0; i < seeds.length; i++) if (doc.seen?.[i] && probs[i] <= 1) seeds[i] = 0;
  // (a τ the caller chose is theirs to keep)
  if (doc.shape === 'grep' && rule.kind === 'calibrated' && !seeds.includes(1)) seedBestMatches(doc, probs, seeds);
  let chosen = repairer.materialize(seeds);
  if (repairer.enabled) {
    const fixed = repairer.fix(chosen, seeds, null);
    chosen = fixed.output;
    if (fixed.problems.length > 0) {
      // First the selection without the repair closure (it may parse where the repaired one did
      // not), then, if that cannot be made to parse either, the input whole.
      const plain = repairer.fix(repairer.materializeUnrepaired(seeds), seeds, null, repairer.materializeUnrepaired);
      if (plain.problems.length > 0)
        return { kind: 'whole', why: diagnostic('repair-failed', 'syntax repair could not make the pruned output parse: returned unchanged'), score: docScore };
      chosen = plain.output;
      job.diagnostics.push(diagnostic('repair-skipped', 'syntax repair could not converge: the selected lines are shown without repair (the output parses)'));
    }
  }
  return { kind: 'selected', chosen, thresholdInfo };
}

/** A search output keeps at least this many of its best matches. */
const SEARCH_FLOOR_LINES = 3;

/**
 * A search's output where no line reaches τ still shows its best matches: the agent asked for
 * these lines by pattern, and a fold of every one of them leaves it nothing to go on (the matches
 * of a search lack the code around them, so they score lower than the same lines in a file read).
 */
function seedBestMatches(doc: Document, probs: Float64Array, seeds: Uint8Array): void {
  const candidates = doc.lines.map((_, i) => i).filter((i) => doc.lines[i].segment !== -1 && !doc.seen?.[i] && doc.lines[i].text.trim() !== '');
  // matches before context lines (`grep -C`), then by score
  const isMatch = (i: number) => (doc.lines[i].isMatch === false ? 0 : 1);
  candidates.sort((a, b) => isMatch(b) - isMatch(a) || probs[b] - probs[a] || a - b);
  for (const i of candidates.slice(0, SEARCH_FLOOR_LINES)) seeds[i] = 1;
}

/** τ as keep probability: the caller's, the caller's on the relative scale, or the calibrated one scaled by the read policy. */
export function tauOf(rule: TauRule, calibrated: number, decision: ReadDecision | null): number {
  switch (rule.kind) {
    case 'given':
      return rule.tau;
    case 'relative':
      return relativeTau(rule.relative, calibrated);
    case 'calibrated':
      return Math.min(1, calibrated * (decision?.tauScale ?? 1));
  }
}

/** A threshold on the relative scale (0.5 = the calibrated τ) as a keep probability. */
export function relativeTau(r: number, calibrated: number): number {
  return Math.pow(relativeBase(calibrated), (1 - r) / 0.5);
}

/** The calibrated τ both directions of the relative scale are built on (kept in (0, 1]). */
function relativeBase(calibrated: number): number {
  return Math.min(Math.max(calibrated, 1e-6), 1);
}

/**
 * A keep probability on the relative scale, the inverse of relativeTau: a line scoring p passes
 * relativeThreshold r exactly when relativeScore(p) >= r (τ itself maps to 0.5, 1 to 1, τ² to 0).
 */
export function relativeScore(p: number, calibrated: number): number {
  const base = relativeBase(calibrated);
  if (base >= 1) return p >= 1 ? 1 : 0;
  if (!(p > 0)) return 0;
  return Math.min(1, Math.max(0, 1 - (0.5 * Math.log(p)) / Math.log(base)));
}
