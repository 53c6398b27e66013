/**
 * Admission, before anything is parsed: input that is not worth pruning comes back whole (empty,
 * binary, over the size ceiling); the rest is counted once in o200k tokens, which fixes the
 * mode's budget.
 */
import { diagnostic } from '../diagnostics.js';
import { CHARS, TOKENS } from '../layout/measure.js';
import { MAX_PRUNE_CHARS, MAX_PRUNE_LINES } from '../limits.js';
import type { Admitted, Mode, PruneJob, RequestedMode, Whole } from '../pipeline/types.js';
import { countTokens } from '../tokens/count.js';
import { countLines } from './ingest.js';

/**
 * Why the input is over the ceiling (MAX_PRUNE_CHARS / MAX_PRUNE_LINES), or null. Beyond it the
 * input comes back whole with a warning, in every mode.
 */
export function overCeiling(code: string): string | null {
  if (code.length > MAX_PRUNE_CHARS) return `input larger than ${MAX_PRUNE_CHARS.toLocaleString('en')} characters`;
  if (countLines(code, MAX_PRUNE_LINES + 1) > MAX_PRUNE_LINES) return `input longer than ${MAX_PRUNE_LINES.toLocaleString('en')} lines`;
  return null;
}

/** A token count that costs nothing: about 4 characters per o200k token (results flag it: `tokensEstimated`). */
export function estimateTokenCount(text: string): number {
  return Math.ceil(text.length / 4);
}

/** NUL bytes or a high share of control characters: not text an agent can use pruned. */
export function looksBinary(code: string): boolean {
  const sample = code.slice(0, 8192);
  if (sample.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/** The result's `tokensIn` when the input comes back whole: 0 for empty input. */
export type AdmitOutcome = Admitted | (Whole & { tokensIn: number });

export function admit(job: PruneJob): AdmitOutcome {
  const { code } = job;
  if (code.length === 0) return { kind: 'whole', why: diagnostic('empty-input', 'empty input'), score: 1, tokensIn: 0 };
  const over = overCeiling(code);
  if (over) {
    // Not even counted: tokenizing it would cost more than the ceiling is there to bound.
    const why = diagnostic('over-ceiling', `${over}: returned unchanged (not pruned; token counts estimated)`);
    return { kind: 'whole', why, score: 1, tokensIn: estimateTokenCount(code), tokensEstimated: true };
  }
  const tokensIn = countTokens(code);
  // Not text to prune: back unchanged, in every mode (fail open; a budget is not applied).
  if (looksBinary(code)) return { kind: 'whole', why: diagnostic('binary-input', 'binary input returned unchanged'), score: 1, tokensIn };
  return { kind: 'admitted', tokensIn, mode: modeFor(job.mode, tokensIn) };
}

/** The mode with its budget fixed: a ratio is of the input's token count. */
function modeFor(mode: RequestedMode, tokensIn: number): Mode {
  switch (mode.kind) {
    case 'threshold':
      return mode;
    case 'chars':
      return { kind: 'budget', budget: mode.chars, measure: CHARS };
    case 'tokens':
      return { kind: 'budget', budget: mode.tokens, measure: TOKENS };
    case 'ratio':
      return { kind: 'budget', budget: Math.floor(tokensIn / mode.ratio), measure: TOKENS };
  }
}
