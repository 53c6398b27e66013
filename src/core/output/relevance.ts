/**
 * Which output lines name what the agent is after: a line is relevant when it holds a term of the
 * goal hint or the task that few lines of this output hold (a test name, a function, a path
 * component), so a common word of the question does not make half a log relevant.
 */
import { termsOf } from './lines.js';

/** A term held by more lines than this is too common in the output to single a line out. */
export const RARE_IN_OUTPUT = 3;

export function relevantLines(lines: readonly string[], question: string): Uint8Array {
  const relevant = new Uint8Array(lines.length);
  const wanted = new Set(termsOf(question));
  if (wanted.size === 0) return relevant;
  const lineTerms = lines.map((l) => new Set(termsOf(l).filter((t) => wanted.has(t))));
  const holders = new Map<string, number>();
  for (const ts of lineTerms) for (const t of ts) holders.set(t, (holders.get(t) ?? 0) + 1);
  for (let i = 0; i < lines.length; i++) {
    for (const t of lineTerms[i]) {
      if ((holders.get(t) ?? 0) <= RARE_IN_OUTPUT) {
        relevant[i] = 1;
        break;
      }
    }
  }
  return relevant;
}
