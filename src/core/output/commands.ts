/**
 * What kind of command printed an output, by its text: the one set of patterns the learned
 * judgement's command families (lineFeatures.ts) and the bench's kinds of output
 * (src/bench/outputSteps.ts) are read from.
 */

/** A command without the `cd DIR && ` an agent's harness puts before it. */
export function withoutCd(command: string): string {
  return command.replace(/^\s*cd \S+ && /, '');
}

/**
 * A command that prints the lines a marker stands for (`skim show HANDLE:a-b`): what the agent
 * asked for by name, so its output is never folded again (it would name another marker to run).
 */
export function expandsMarker(command: string): boolean {
  // the whole command is one `skim show`, after any `cd`s and variables: `cd a && X=1 skim show H`,
  // `npx --yes skim show H`, `./node_modules/.bin/skim show H` (a compound command prints more)
  const m = EXPANDS_MARKER.exec(command);
  return m !== null && !/[;&|`]|\$\(/.test(m[1] ?? '');
}

const EXPANDS_MARKER =
  /^\s*(?:cd\s+(?:"[^"]*"|'[^']*'|\S+)\s*&&\s*)*(?:env\s+)?(?:\w+=(?:"[^"]*"|'[^']*'|\S*)\s+)*(?:npx\s+(?:--?\S+\s+)*)?(?:\S*\/)?skim(?:-pruner)?\s+show(?:\s+([^\n]*))?\s*$/;

/** Commands that print an output of each kind (of a command without its `cd`). */
export const COMMAND_PATTERNS = {
  test: /\bpytest\b|runtests\.py|bin\/test\b|-m unittest\b|\btox\b|manage\.py test\b|\b(jest|vitest|mocha)\b|\bgo test\b|\bcargo test\b/,
  diff: /\bgit (diff|show)\b|\bdiff -/,
  listing: /^\s*(ls|find|tree)\b|\|\s*(ls|find)\b|&&\s*(ls|find|tree)\b/,
  /** A search the command starts with (`grep -rn`, `rg`). */
  search: /^\s*(grep|rg|ag)\b/,
  /** Another command's output filtered by grep. */
  searchPipe: /\|\s*grep\b/,
  read: /^\s*(cat|head|tail|sed|nl|awk)\b/,
  script: /\bpython3?\b|\bnode\b|\.sh\b|\bbash\b/,
} as const;
