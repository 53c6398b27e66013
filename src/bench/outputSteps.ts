/**
 * Every output of an agent run, not only its reads (../shared/bench/README.md, "Every output, not
 * only reads"): which lines of an output the agent used, and what kind of output it is.
 *
 * An output line is used when the agent's next assistant message holds one of its rarer tokens:
 * tokens are [A-Za-z_][A-Za-z0-9_]{2,} and \d{2,}, lower-cased; the step's own command's tokens and
 * a short list of common words do not count; a token is rarer when at most 3 lines of the output
 * hold it.
 */

import { COMMAND_PATTERNS, withoutCd } from '../core/output/commands.js';

const TOKEN_RE = /[A-Za-z_][A-Za-z0-9_]{2,}|\d{2,}/g;
const NOT_COUNTED = new Set(
  'the and for with not are was but this that from has have had you your def return self none true false import class print python python3 file line lines test tests error output'.split(
    ' ',
  ),
);
const RARER = 3;

const tokensOf = (s: string) => new Set(Array.from(s.matchAll(TOKEN_RE), (m) => m[0].toLowerCase()));

/** 1-based lines of `body` the agent used in `next` (its next assistant message). */
export function usedLines(body: string, next: string, command: string | null): number[] {
  const lines = body.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const inNext = tokensOf(next);
  const ofCommand = tokensOf(command ?? '');
  const lineTokens = lines.map(tokensOf);
  const holders = new Map<string, number>();
  for (const ts of lineTokens) for (const t of ts) holders.set(t, (holders.get(t) ?? 0) + 1);
  const used: number[] = [];
  lineTokens.forEach((ts, i) => {
    for (const t of ts) {
      if (!NOT_COUNTED.has(t) && !ofCommand.has(t) && (holders.get(t) ?? 0) <= RARER && inNext.has(t)) {
        used.push(i + 1);
        return;
      }
    }
  });
  return used;
}

export type OutputKind = 'test' | 'listing' | 'script' | 'diff' | 'search' | 'other';

export const OUTPUT_KINDS: OutputKind[] = ['test', 'listing', 'script', 'diff', 'search', 'other'];

/** The kind of output a command prints, for the per-kind report. */
export function outputKindOf(command: string | null): OutputKind {
  const c = withoutCd(command ?? '');
  for (const kind of ['test', 'diff', 'listing', 'search', 'script'] as const) if (COMMAND_PATTERNS[kind].test(c)) return kind;
  return 'other';
}
