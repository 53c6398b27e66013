/**
 * Where prune() runs for the server. The inline runner calls the core on the event loop (simple,
 * used by tests and small deployments); the worker pool (./workerPool.ts) runs it on worker threads
 * so a slow request can be cut off for real at its deadline and both cores are used.
 */
import type { PruneRequest, PruneResult } from '../core/types.js';
import { answerJson, type AnswerBody, type AnswerFormat } from './serialize.js';

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
    close: async () => {},
  };
}
