/**
 * How budget mode measures an output: o200k tokens (`ratio`, `tokens`) or characters (`maxChars`).
 */

import { countTokens } from '../tokens/count.js';
import { estimateTokens, type RenderPiece } from './layout.js';

export interface Measure {
  /** What the budget counts, as a message names it. */
  readonly unit: 'tokens' | 'characters';
  /** Upper bound from the laid-out pieces (cached per-line counts): cheap enough for a search. */
  estimate(pieces: RenderPiece[]): number;
  /** Exact cost of the joined text. */
  exact(text: string): number;
}

export const TOKENS: Measure = { unit: 'tokens', estimate: estimateTokens, exact: countTokens };

export const CHARS: Measure = {
  unit: 'characters',
  // a piece costs its terminator, and at least one character where it has none (the last line)
  estimate: (pieces) => pieces.reduce((t, p) => t + p.line.length + Math.max(1, p.eol.length), 0),
  exact: (text) => text.length,
};
