/**
 * Keep-all selection: nothing to prune for the question, so every line is selected except those
 * session memory has shown before (repair may still bring back what the rest needs of them).
 */
import type { Diagnostic } from '../diagnostics.js';
import type { Selection, Whole } from '../pipeline/types.js';
import type { Repairer } from '../repair/repairer.js';
import type { Document } from '../types.js';

/** `docScore`: the result's score when the output cannot be repaired and the input comes back whole. */
export function selectAllButSeen(doc: Document, repairer: Repairer, why: Diagnostic | undefined, docScore: number): Selection | Whole {
  const n = doc.lines.length;
  const seeds = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (doc.lines[i].segment !== -1 && !doc.seen?.[i]) seeds[i] = 1;
  let chosen = repairer.materialize(seeds);
  if (repairer.enabled) {
    const fixed = repairer.fix(chosen, seeds, null);
    if (fixed.problems.length > 0) return { kind: 'whole', why, score: docScore };
    chosen = fixed.output;
  }
  return { kind: 'selected', chosen };
}
