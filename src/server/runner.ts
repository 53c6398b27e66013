/**
 * Where prune() runs for the server. The inline runner calls the core on the event loop (simple,
 * used by tests and small deployments); the worker pool (./workerPool.ts) runs it on worker threads
 * so a slow request can be cut off for real at its deadline and both cores are used.
 */
import type { OutputWireRequest } from '../core/request.js';
import type { SessionMemory } from '../core/session/memory.js';
import type { PruneRequest, PruneResult } from '../core/types.js';
import { type AnswerBody, type AnswerFormat, answerJson, outputAnswerJson } from './serialize.js';

export interface PruneRunner {
  /** Human-readable kind, shown by /v1/info ("inline", "workers x2"). */
  readonly kind: string;
  /** Prune one request. `signal` aborts at the request's deadline (best effort for inline). */
  prune(req: PruneRequest, signal?: AbortSignal): Promise<PruneResult>;
  /**
   * Prune one request and return its answer's JSON body (serialize.ts answerJson), made where the
   * pruning runs so that the server's main thread only sends it. Optional: without it the server
   * serializes prune()'s result itself.
   */
  answer?(req: PruneRequest, format: AnswerFormat, signal?: AbortSignal): Promise<AnswerBody>;
  /**
   * Read a /v1/prune (`v1`) or /prune (`swe`) request body (UTF-8 JSON), prune it and return its
   * answer, all where the pruning runs: decoding and parsing a body of megabytes happen under the
   * request's time limit, and the main thread only moves bytes. `sessionOf` gives the memory of a
   * session the body names. A body the client has to fix rejects with a SkimError. Optional.
   */
  answerRaw?(
    body: Uint8Array,
    route: AnswerFormat,
    sessionOf: (id: string) => SessionMemory | Promise<SessionMemory>,
    signal?: AbortSignal,
  ): Promise<AnswerBody>;
  /**
   * The fail-open answer of a /v1/prune or /prune body whose prune failed (serialize.ts
   * rawFailOpen), made off the main thread, and the length of the text it gives back. Optional:
   * without it, or when it fails with anything but a SkimError, the server makes it itself.
   */
  failOpenRaw?(body: Uint8Array, route: AnswerFormat, message: string, started: number): Promise<{ json: Uint8Array; chars: number }>;
  /**
   * Prune a command's output (pruneOutput) with the session's output memory and return its
   * answer's JSON body (serialize.ts outputAnswerJson), where the pruning runs. Optional: without
   * it the server prunes outputs on its own thread.
   */
  answerOutput?(req: OutputWireRequest, session: SessionMemory | undefined, signal?: AbortSignal): Promise<AnswerBody>;
  close(): Promise<void>;
}

/** Anything with a prune() method, e.g. the object returned by createPruner(). */
export interface PrunerLike {
  prune(req: PruneRequest): Promise<PruneResult>;
}

export function inlineRunner(pruner: PrunerLike): PruneRunner {
  return {
    kind: 'inline',
    prune: (req) => pruner.prune(req),
    answer: async (req, format) => answerJson(req, await pruner.prune(req), format),
    answerOutput: async (req, session) => outputAnswerJson(req, session?.outputs),
    close: async () => {},
  };
}
