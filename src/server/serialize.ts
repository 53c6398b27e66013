/**
 * JSON shapes of results: PruneResult with typed arrays turned into plain arrays, the fail-open
 * result (original text, nothing omitted) and the SWE-Pruner wire response; and answerJson, the
 * whole answer body, serialized where the pruning ran (a worker thread).
 */

import { diagnostic } from '../core/diagnostics.js';
import { estimateTokenCount } from '../core/ingest/admit.js';
import { countLines } from '../core/ingest/ingest.js';
import type { OutputMemory } from '../core/output/memory.js';
import { pruneOutput } from '../core/output/pruneOutput.js';
import { type OutputResultJson, outputResultJson } from '../core/output/stored.js';
import { queryAsRead } from '../core/pipeline/job.js';
import { wholeResult } from '../core/render/whole.js';
import type { OutputWireRequest } from '../core/request.js';
import { relativeScore } from '../core/select/threshold.js';
import { countTokens } from '../core/tokens/count.js';
import type { PruneRequest, PruneResult } from '../core/types.js';
import { bodyText, outputBodyOf, parseJsonText, requestOf } from './requests.js';

export type PruneResultJson = Omit<PruneResult, 'keepMask'> & { keepMask: number[]; error?: string; queryTokens?: number };

export function resultToJson(r: PruneResult): PruneResultJson {
  return { ...r, keepMask: Array.from(r.keepMask ?? []) };
}

/** Which answer a route sends: skim's result (/v1/prune) or SWE-Pruner's response (/prune). */
export type AnswerFormat = 'v1' | 'swe';

/** An answer's JSON body: text, or its UTF-8 bytes (a worker hands those over without a copy). */
export type AnswerBody = string | Uint8Array;

/**
 * The JSON body of an answer. Serializing (and, for SWE-Pruner, counting the query's tokens) costs
 * time in the size of the input: runners do it where the pruning ran, not on the main thread.
 */
export function answerJson(req: PruneRequest, r: PruneResult, format: AnswerFormat): string {
  const json = resultToJson(r);
  if (format === 'v1') return JSON.stringify(json);
  return JSON.stringify(toSwePrunerResponse(req.query ?? '', req.code, { ...json, queryTokens: countTokens(queryAsRead(req.query)) }));
}

/**
 * What the server answers when pruning failed or ran out of time: the input, untouched. Built on
 * the main thread after the deadline, so nothing here may cost more than a pass over the text:
 * the token counts are estimates (`tokensEstimated`), not a tokenizer run over up to 8 MiB.
 */
export function failOpenResult(req: PruneRequest, message: string, started: number): PruneResultJson {
  return { ...resultToJson(failOpenWhole(req, message, started)), error: message };
}

/** Everything of the fail-open result but its text and line mask (every line kept), and the line count. */
function failOpenMeta(req: PruneRequest, message: string, started: number): { n: number; meta: Omit<PruneResultJson, 'text' | 'keepMask'> } {
  const { text: _text, keepMask, ...meta } = failOpenWhole(req, message, started);
  return { n: keepMask.length, meta: { ...meta, error: message } };
}

function failOpenWhole(req: PruneRequest, message: string, started: number): PruneResult {
  return wholeResult(req.code, {
    tokensIn: estimateTokenCount(req.code),
    tokensEstimated: true,
    // nothing was scored, nor the language detected
    score: 0,
    language: req.language ?? 'unknown',
    ms: Date.now() - started,
    diagnostics: [diagnostic('not-pruned', `not pruned: ${message}`)],
  });
}

/**
 * The fail-open answer (failOpenResult, or SWE-Pruner's response to it) as JSON pieces, made one at
 * a time as the socket takes them: the answer of an input of megabytes and hundreds of thousands of
 * lines is built on the main thread, after a deadline, and no piece may hold it for long.
 */
export function* failOpenPieces(req: PruneRequest, message: string, started: number, format: AnswerFormat): Generator<string> {
  const { n, meta } = failOpenMeta(req, message, started);
  const head = format === 'v1' ? 'text' : 'pruned_code';
  yield `{"${head}":`;
  yield JSON.stringify(req.code);
  if (format === 'v1') {
    yield `,${JSON.stringify(meta).slice(1, -1)},"keepMask":[`;
    for (let i = 0; i < n; i += PIECE_LINES) yield (i ? ',' : '') + '1,'.repeat(Math.min(PIECE_LINES, n - i) - 1) + '1';
  } else {
    const swe: Omit<SwePrunerResponse, 'pruned_code' | 'kept_frags'> = {
      score: meta.score,
      token_scores: [],
      origin_token_cnt: meta.tokensIn,
      left_token_cnt: meta.tokensOut,
      model_input_token_cnt: meta.tokensIn + estimateTokenCount(queryAsRead(req.query)),
      error_msg: message,
    };
    yield `,${JSON.stringify(swe).slice(1, -1)},"kept_frags":[`;
    for (let i = 0; i < n; i += PIECE_LINES) {
      const piece: number[] = [];
      for (let k = i + 1; k <= Math.min(n, i + PIECE_LINES); k++) piece.push(k);
      yield (i ? ',' : '') + piece.join(',');
    }
  }
  yield ']}';
}

const PIECE_LINES = 1 << 16;

/**
 * The fail-open answer of a /v1/prune (`v1`) or /prune (`swe`) body, read here from its UTF-8
 * bytes: its JSON pieces, and the length of the text it gives back whole. Reading a body of
 * megabytes and writing it back costs tens of milliseconds: the worker pool does it on a thread of
 * its own, the main thread only when that thread is gone. A body the client has to fix throws a
 * SkimError, as it would have without the failure.
 */
export function rawFailOpen(raw: Uint8Array, route: AnswerFormat, message: string, started: number): { pieces: Iterable<string>; chars: number } {
  const json = parseJsonText(bodyText(raw));
  const output = outputBodyOf(route, json);
  if (output) return { pieces: outputFailOpenPieces(output.req, message), chars: output.req.text.length };
  const { req } = requestOf(route, json);
  return { pieces: failOpenPieces(req, message, started, route), chars: req.code.length };
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
  const lineCount = whole ? countLines(code) : r.keepMask.length;
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
    // counted where the pruning ran (answerJson); estimated when it failed open
    model_input_token_cnt: r.tokensIn + (r.queryTokens ?? estimateTokenCount(queryAsRead(query))),
    error_msg: r.error ?? null,
  };
}

/** The JSON body of an output's answer: pruneOutput()'s result (markers name a handle only when the session kept it). */
export function outputAnswerJson(req: OutputWireRequest, memory: OutputMemory | undefined): string {
  const started = performance.now();
  const r = outputResultJson(pruneOutput({ ...req, memory }));
  return JSON.stringify({ ...r, ms: Math.round((performance.now() - started) * 10) / 10 });
}

/** The fail-open answer of an output (time limit, a failure in the core): the text whole, in pieces. */
export function* outputFailOpenPieces(req: OutputWireRequest, message: string): Generator<string> {
  const n = countLines(req.text);
  const meta: Omit<OutputResultJson, 'text'> & { error: string } = {
    shape: 'text',
    kept: n > 0 ? [[1, n]] : [],
    omitted: [],
    folds: [],
    handle: null,
    linesIn: n,
    charsIn: req.text.length,
    charsOut: req.text.length,
    warnings: [`not pruned: ${message}`],
    diagnostics: [diagnostic('not-pruned', `not pruned: ${message}`)],
    error: message,
  };
  yield '{"text":';
  yield JSON.stringify(req.text);
  yield `,${JSON.stringify(meta).slice(1)}`;
}
