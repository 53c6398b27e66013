/**
 * Which output lines name what the agent is after: a line is relevant when it holds a term of the
 * goal hint or the task that few lines of this output hold (a test name, a function, a path
 * component), so a common word of the question does not make half a log relevant.
 */
import { termsOf } from './lines.js';

/** A term held by more lines than this is too common in the output to single a line out. */
export const RARE_IN_OUTPUT = 3;

export function relevantLines(lines: readonly string[], question: string): Uint8Array {
  const wanted = new Set(termsOf(question));
  if (wanted.size === 0) return new Uint8Array(lines.length);
  return rareHolders(lines.map((l) => wantedTerms(l, wanted)));
}

/** The terms of `wanted` (a question's) that a text holds. */
export function wantedTerms(text: string, wanted: ReadonlySet<string>): Set<string> {
  return new Set(termsOf(text).filter((t) => wanted.has(t)));
}

/** Per unit, given the question's terms each holds: 1 when it holds one that few units hold. */
export function rareHolders(unitTerms: readonly ReadonlySet<string>[]): Uint8Array {
  const relevant = new Uint8Array(unitTerms.length);
  const holders = new Map<string, number>();
  for (const ts of unitTerms) for (const t of ts) holders.set(t, (holders.get(t) ?? 0) + 1);
  for (let i = 0; i < unitTerms.length; i++) {
    for (const t of unitTerms[i]) {
      if ((holders.get(t) ?? 0) <= RARE_IN_OUTPUT) {
        relevant[i] = 1;
        break;
      }
    }
  }
  return relevant;
}
