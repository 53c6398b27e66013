/**
 * Saying when unsure: a pruned read whose best line matches the goal hint only weakly, or that is
 * longer than the reads the policy was fitted on, tells the agent so (a diagnostic it sees as a
 * warning), with what to do: name the identifiers it expects, or read the range it needs.
 *
 * On swebench-dev's gold files (issue texts as hints), a best line under 8x the shipped model's
 * calibrated τ (WEAK_MATCH_EXPONENT) flags 22 of the 53 files that kept under a fifth of their fix lines, 1 of the 115
 * that kept half or more, and 209 of 332 unrelated files, where it is true (the file is probably
 * not the one); under 1x τ (11 of the 53) the whole file is omitted and 'nothing-relevant' says
 * so already. `npx tsx scripts/weak-match.ts` makes the table (BENCHMARKS.md, "Saying when unsure").
 */
import { type Diagnostic, diagnostic } from '../diagnostics.js';
import { FITTED_CHARS, type ReadDecision } from './readPolicy.js';

/**
 * A best line below τ^WEAK_MATCH_EXPONENT is a weak match: 8x τ for the shipped model (τ 0.00072),
 * and a bound that stays below 1 for any τ in (0, 1) (for a τ of 0.5, 0.61).
 */
export const WEAK_MATCH_EXPONENT = 0.71;

export interface ReadConfidence {
  /** The best keep probability of a content line (pinned lines excluded). */
  best: number;
  /** The scorer's calibrated τ. */
  calibrated: number;
  /** Characters of the read. */
  chars: number;
  decision: ReadDecision | null;
}

/** The warning for a read that omitted lines in the default mode, or null when there is no reason to doubt it. */
export function doubtAbout(c: ReadConfidence): Diagnostic | null {
  if (!c.decision || c.decision.tauScale === null) return null;
  const weak = c.calibrated > 0 && c.calibrated < 1 && c.best < c.calibrated ** WEAK_MATCH_EXPONENT;
  const ratio = c.best / c.calibrated;
  const advice = 'if a line you need is missing, name the identifiers you expect in the goal hint, or read the range you need';
  if (weak)
    return diagnostic(
      'weak-match',
      `weak match: the best line scores ${ratio.toFixed(1)}x the threshold against the goal hint${c.decision.beyondFit ? ` (a long read, ${c.chars} characters)` : ''}; ${advice}`,
    );
  if (c.decision.beyondFit)
    return diagnostic(
      'long-read',
      `long read (${c.chars} characters, over the ${FITTED_CHARS} the read policy was fitted on): pruned at the calibrated threshold; ${advice}`,
    );
  return null;
}
