/**
 * Per-line explanation of a result (`explain: true`): each input line's score, whether it was
 * kept, and why (by score, a gap, a repair rule, layout, or the input returned whole).
 */

import { round4, roundSignificant } from '../pipeline/round.js';
import type { Materialized, ScoredLines } from '../pipeline/types.js';
import type { Document, LineExplain } from '../types.js';

/** `mask`: what the result shows (every line when it returned the input whole instead of `chosen`). */
export function explainLines(doc: Document, scored: ScoredLines, chosen: Materialized, mask: Uint8Array): LineExplain[] {
  const { probs, gate } = scored;
  return doc.lines.map((l, i): LineExplain => {
    const e: LineExplain = { line: i + 1, score: roundSignificant(Math.min(1, probs[i])), kept: mask[i] === 1 };
    if (gate && !Number.isNaN(gate[i])) e.gateSemantic = round4(gate[i]);
    const why = chosen.reasons[i];
    if (!e.kept) return e;
    if (l.segment === -1) e.reason = 'layout';
    else if (chosen.mask[i] !== 1) e.reason = 'whole';
    else e.reason = why === 'score' || why === undefined ? 'score' : why === 'gap' ? 'gap' : `repair:${why}`;
    return e;
  });
}
