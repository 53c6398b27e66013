/**
 * The line that stands where a capture dropped the middle of an output too long to keep
 * (src/tools/capture.ts keeps its first and last lines): the rules always show it (classify.ts),
 * so the agent knows the output it reads has a hole, and how large.
 */

/** The note for `bytes` dropped under a limit (its text: "16 MiB"). */
export function droppedNote(bytes: number, limit: string): string {
  return `[skim: ${bytes} bytes of output not kept here (over the ${limit} limit: its first and last lines are kept)]`;
}

export const DROPPED_NOTE_RE = /^\[skim: \d+ bytes of output not kept here \(/;
