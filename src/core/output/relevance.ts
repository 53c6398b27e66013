/**
 * Which output lines name what the agent is after: a line is relevant when it holds a term of the
 * goal hint or the task that few lines of this output hold (a test name, a function, a path
 * component), so a common word of the question does not make half a log relevant.
 */
import { termsOf } from './lines.js';

/** A term held by more lines than this is too common in the output to single a line out. */
export const RARE_IN_OUTPUT = 3;

/**
 * Per line, the terms of the goal hint or the task it holds (none read when the question names
 * nothing): what the relevance of a line, and of a diagnostic of several lines, is decided from.
 */
export function questionTermsByLine(lines: readonly string[], question: string): ReadonlySet<string>[] {
  const wanted = new Set(termsOf(question));
  if (wanted.size === 0) return lines.map(() => NO_TERMS);
  return lines.map((l) => new Set(termsOf(l).filter((t) => wanted.has(t))));
}

const NO_TERMS: ReadonlySet<string> = new Set();

/** Per unit (a line, a diagnostic), given the question's terms each holds: 1 when it holds one that few units hold. */
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
