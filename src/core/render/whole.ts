/**
 * The one constructor of the result that returns the input whole (every line kept, nothing
 * omitted): empty, binary or oversized input, nothing to prune for the question, a failure that
 * fails open. The adapters (CLI, server) build theirs here too, so the fields agree.
 */

import { type Diagnostic, messagesOf } from '../diagnostics.js';
import { countLines } from '../ingest/ingest.js';
import type { PruneJob, Whole } from '../pipeline/types.js';
import type { Document, InputShape, PruneResult } from '../types.js';

export interface WholeFacts {
  tokensIn: number;
  /** The token count is an estimate (about 4 characters per token), not an o200k count. */
  tokensEstimated?: boolean;
  /** Document relevance: 1 when nothing was scored, the scored relevance otherwise. */
  score: number;
  language: string;
  /** Default 'raw' (the input was never ingested). */
  shape?: InputShape;
  /** The input's line count when already known (an ingested document); counted otherwise. */
  lineCount?: number;
  ms?: number;
  diagnostics: Diagnostic[];
}

export function wholeResult(code: string, facts: WholeFacts): PruneResult {
  // `kept` covers every returned line, also when the input was never ingested (binary input)
  const n = facts.lineCount ?? countLines(code);
  return {
    text: code,
    kept: n ? [[1, n]] : [],
    omitted: [],
    score: facts.score,
    tokensIn: facts.tokensIn,
    tokensOut: facts.tokensIn,
    ...(facts.tokensEstimated ? { tokensEstimated: true } : {}),
    language: facts.language,
    ms: facts.ms ?? 0,
    shape: facts.shape ?? 'raw',
    warnings: messagesOf(facts.diagnostics),
    diagnostics: facts.diagnostics,
    keepMask: new Uint8Array(n).fill(1),
  };
}

/** The whole-input result of a prune() call a stage ended with `whole` (`doc`: null before ingest). */
export function wholeOf(job: PruneJob, whole: Whole, tokensIn: number, doc: Document | null): PruneResult {
  if (whole.why) job.diagnostics.push(whole.why);
  const result = wholeResult(job.code, {
    tokensIn,
    tokensEstimated: whole.tokensEstimated,
    score: whole.score,
    language: doc?.segments[0]?.language ?? job.language ?? 'text',
    shape: doc?.shape,
    lineCount: doc?.lines.length,
    ms: performance.now() - job.started,
    diagnostics: job.diagnostics,
  });
  return { ...result, ...whole.extra };
}
