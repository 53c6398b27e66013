/**
 * JSON shapes of results: PruneResult with typed arrays turned into plain arrays, the fail-open
 * result (original text, nothing omitted) and the SWE-Pruner wire response.
 */
import type { PruneRequest, PruneResult } from '../core/types.js';
import { countTokens } from '../core/tokens/count.js';
import { relativeScore } from '../core/prune.js';

export type PruneResultJson = Omit<PruneResult, 'keepMask'> & { keepMask: number[]; error?: string };

export function resultToJson(r: PruneResult): PruneResultJson {
  return { ...r, keepMask: Array.from(r.keepMask ?? []) };
}

/** Number of lines the way the core counts them (a final newline does not start a new line). */
export function countInputLines(code: string): number {
  if (code.length === 0) return 0;
  let n = 1;
  for (let i = code.indexOf('\n'); i !== -1; i = code.indexOf('\n', i + 1)) n++;
  return code.endsWith('\n') ? n - 1 : n;
}

/** What the server answers when pruning failed or ran out of time: the input, untouched. */
export function failOpenResult(req: PruneRequest, message: string, started: number): PruneResultJson {
  const n = countInputLines(req.code);
  const tokens = countTokens(req.code);
  return {
    text: req.code,
    kept: n > 0 ? [[1, n]] : [],
    omitted: [],
    score: 0,
    tokensIn: tokens,
    tokensOut: tokens,
    language: req.language ?? 'unknown',
    ms: Date.now() - started,
    shape: 'raw',
    warnings: [`not pruned: ${message}`],
    keepMask: new Array(n).fill(1),
    error: message,
  };
}

export interface SwePrunerResponse {
  score: number;
  pruned_code: string;
  token_scores: Array<[string, number]>;
  kept_frags: number[];
  origin_token_cnt: number;
  left_token_cnt: number;
  model_input_token_cnt: number;
  error_msg: string | null;
}

/**
 * SWE-Pruner's response. skim scores lines, not tokens: `token_scores` carries one entry per input
 * line (its text and score), which is what SWE-Pruner aggregates its token scores to. The scores
 * are on SWE-Pruner's scale, the one its `threshold` is read on (0.5 = skim's calibrated τ): a
 * client that re-applies its threshold to them finds the lines skim kept by score.
 */
export function toSwePrunerResponse(query: string, code: string, r: PruneResultJson): SwePrunerResponse {
  // Input that came back whole kept every line, also when the result has no line mask (binary input).
  const whole = r.text === code;
  const lineCount = whole ? countInputLines(code) : r.keepMask.length;
  const kept: number[] = [];
  for (let i = 0; i < lineCount; i++) if (whole || r.keepMask[i]) kept.push(i + 1);
  let tokenScores: Array<[string, number]> = [];
  if (r.explain) {
    const lines = code.split('\n');
    const tau = r.calibratedThreshold;
    // rounded down, so that "score >= threshold" still holds only for lines that pass it
    const onScale = (p: number): number => (tau === undefined ? p : Math.floor(relativeScore(p, tau) * 1000) / 1000);
    tokenScores = r.explain.map((e) => [(lines[e.line - 1] ?? '').replace(/\r$/, ''), onScale(e.score)]);
  }
  return {
    score: r.score, // prune() rounds it to 4 decimals
    pruned_code: r.text,
    token_scores: tokenScores,
    kept_frags: kept,
    origin_token_cnt: r.tokensIn,
    left_token_cnt: r.tokensOut,
    model_input_token_cnt: r.tokensIn + (query ? countTokens(query) : 0),
    error_msg: r.error ?? null,
  };
}
