/**
 * A fixed-size pool of worker threads running prune(). The server's semaphore admits at most
 * `size` requests at a time, so each admitted request finds an idle worker. When a request's
 * deadline fires, its worker is terminated (CPU-bound pruning cannot be interrupted otherwise)
 * and replaced by a fresh one.
 */

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { errorFromWire } from '../core/errors.js';
import type { OutputWireRequest } from '../core/request.js';
import type { SessionChanges, SessionMemory, SessionSnapshot } from '../core/session/memory.js';
import { type CoreSettings, coreSettings } from '../core/settings.js';
import type { PruneRequest, PruneResult } from '../core/types.js';
import type { PruneRunner } from './runner.js';
import type { AnswerFormat } from './serialize.js';

/** What a worker thread is started with (its workerData). */
export interface WorkerInit {
  scorer?: 'heuristic' | 'learned';
  modelDir?: string;
  /** The core's settings of the thread that starts the pool (a worker has its own copy of the core). */
  core?: CoreSettings;
  /** `fail-open`: the thread that writes fail-open answers (it prunes nothing). */
  role?: 'fail-open';
}

export interface WorkerPoolOptions {
  size: number;
  scorer?: 'heuristic' | 'learned';
  modelDir?: string;
}

interface Pending {
  /** The worker asks for the session's memory of these files (of the session a raw body names), and its outputs for an output. */
  memoryFor: (paths: string[], sessionId?: string, outputs?: boolean) => void | Promise<void>;
  resolve: (reply: WorkerReply) => void;
  reject: (e: Error) => void;
}

/**
 * To a worker: the request (without its SessionMemory); with `session`, the worker first asks for
 * the files its read names (WorkerReply.paths) and gets that part of the memory (WorkerMemory):
 * finding them in the text is the worker's job, not the main thread's.
 */
export interface WorkerRequest {
  id: number;
  /** The request, or a command's output, or (with `route`) its body to read in the worker. */
  req?: PruneRequest;
  output?: OutputWireRequest;
  raw?: Uint8Array;
  route?: AnswerFormat;
  session?: boolean;
  /** Reply with the answer's JSON body in this format instead of the result (answerJson). */
  format?: AnswerFormat;
  /** With `raw` and `route`: reply with the body's fail-open answer (serialize.ts rawFailOpen) instead. */
  failOpen?: { message: string; started: number };
}

/** To a worker: the part of the session its request can use. */
export interface WorkerMemory {
  id: number;
  memory: SessionSnapshot;
}

/** From a worker: the files its read names (then it waits for WorkerMemory); or the result and what its copy of the session recorded; or an error. */
export interface WorkerReply {
  id: number;
  paths?: string[];
  /** With `paths`: the session a raw body names. */
  sessionId?: string;
  /** With `paths`: the request is a command's output, and needs the session's outputs too. */
  outputs?: boolean;
  result?: PruneResult;
  /** The answer's JSON body as UTF-8 (transferred, not copied), when the request named a format. */
  json?: Uint8Array;
  changes?: SessionChanges;
  /** With a fail-open answer: the length of the text it gives back. */
  chars?: number;
  error?: string;
  /** With `error`: its SkimError code, when it was one (a request the client has to fix, ...). */
  code?: string;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  /** The worker failed or exited: it takes no more requests. */
  dead?: boolean;
}

/**
 * How to start a worker: the built .js entry next to this module, or, when running from sources
 * (tsx, vitest), a small bootstrap that registers tsx's loader in the worker and then imports the
 * .ts entry (a worker does not reliably inherit the parent's loader hooks).
 */
function workerSpec(): { script: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { script: new URL('./pruneWorker.js', import.meta.url), eval: false };
  // tsx's ESM register API (the "import" condition of its `tsx/esm/api` export).
  const tsxDir = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(join(tsxDir, 'dist', 'esm', 'api', 'index.mjs')).href;
  const entry = new URL('./pruneWorker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return { script: bootstrap, eval: true };
}

/**
 * A first request for every new worker, before it takes real ones: loading the model and a grammar
 * takes a second or more, and a replacement for a worker stopped at a deadline must not make the
 * requests given to it miss theirs too (a short time limit would otherwise cascade).
 */
const WARM_UP: PruneRequest = {
  code: Array.from({ length: 12 }, (_, i) => `def step_${i}(x):\n    if x > ${i}:\n        return x - ${i}\n    return x + ${i}\n`).join('\n'),
  query: 'which step returns x minus its number?',
  language: 'python',
  ratio: 2,
};

/**
 * The fail-open answers' thread (no model loaded): the body of a prune that failed is read and
 * written back whole there, not on the main thread, nor on a pruning worker (which may be the one
 * that is stuck). Started with the pool, started again when it dies.
 */
interface AnswerThread {
  worker: Worker;
  pending: Map<number, { resolve: (reply: WorkerReply) => void; reject: (e: Error) => void }>;
}

/** The pool's state: its workers (idle ones, all of them), the requests waiting for one, and the fail-open thread. */
interface Pool {
  opts: WorkerPoolOptions;
  spec: { script: string | URL; eval: boolean };
  idle: Slot[];
  all: Set<Slot>;
  waiting: Array<(s: Slot) => void>;
  nextId: number;
  closed: boolean;
  answers: AnswerThread | undefined;
}

/** What a worker is asked: a request, or a body to read (with the sessions it may name). */
type Job =
  | { req: PruneRequest; format?: AnswerFormat }
  | { output: OutputWireRequest; session?: SessionMemory }
  | { raw: Uint8Array; route: AnswerFormat; sessionOf: (id: string) => SessionMemory | Promise<SessionMemory> };

export function createWorkerPool(opts: WorkerPoolOptions): PruneRunner {
  const pool: Pool = { opts, spec: workerSpec(), idle: [], all: new Set(), waiting: [], nextId: 1, closed: false, answers: undefined };
  for (let i = 0; i < opts.size; i++) spawn(pool);
  answerThread(pool);
  return {
    kind: `workers x${opts.size}`,
    prune: async (req, signal) => (await dispatch(pool, { req }, signal)).result!,
    answer: async (req, format, signal) => (await dispatch(pool, { req, format }, signal)).json!,
    answerRaw: async (raw, route, sessionOf, signal) => (await dispatch(pool, { raw, route, sessionOf }, signal)).json!,
    answerOutput: async (output, session, signal) => (await dispatch(pool, { output, session }, signal)).json!,
    failOpenRaw: (raw, route, message, started) => failOpenRaw(pool, raw, route, message, started),
    async close(): Promise<void> {
      pool.closed = true;
      await Promise.all([...[...pool.all].map((s) => s.worker.terminate()), pool.answers?.worker.terminate()]);
      pool.all.clear();
      pool.idle.length = 0;
    },
  };
}

/** Start a worker; it joins the pool once warm. */
function spawn(pool: Pool): Slot {
  const { opts, spec } = pool;
  const worker = new Worker(spec.script, {
    eval: spec.eval,
    workerData: { scorer: opts.scorer, modelDir: opts.modelDir, core: coreSettings() } satisfies WorkerInit,
    // Workers write nothing to stdout; keep their stderr on ours.
    stderr: false,
  });
  const slot: Slot = { worker, pending: new Map() };
  worker.on('message', (msg: WorkerReply) => onWorkerReply(slot, msg));
  const fail = (err: Error) => {
    slot.dead = true;
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
    retire(pool, slot);
  };
  worker.on('error', (err) => fail(err instanceof Error ? err : new Error(String(err))));
  worker.on('exit', (code) => {
    if (slot.pending.size > 0) fail(new Error(`prune worker exited with code ${code}`));
    else retire(pool, slot);
  });
  pool.all.add(slot);
  // it joins the pool once warm (an error reply still means a live worker)
  const id = pool.nextId++;
  const ready = () => {
    if (!slot.dead) release(pool, slot);
  };
  slot.pending.set(id, { memoryFor: () => {}, resolve: ready, reject: ready });
  const warmUp: WorkerRequest = { id, req: WARM_UP };
  worker.postMessage(warmUp);
  return slot;
}

/** A worker's message: it asks for session memory, or it answers a request. */
function onWorkerReply(slot: Slot, msg: WorkerReply): void {
  const p = slot.pending.get(msg.id);
  if (!p) return;
  if (msg.paths) {
    // (a session that could not be had: the worker prunes without memory)
    void Promise.resolve(p.memoryFor(msg.paths, msg.sessionId, msg.outputs)).catch(() => {
      const none: WorkerMemory = { id: msg.id, memory: { files: [] } };
      slot.worker.postMessage(none);
    });
    return;
  }
  slot.pending.delete(msg.id);
  if (msg.error !== undefined) p.reject(errorFromWire(msg.error, msg.code));
  else p.resolve(msg);
}

/** Drop a dead or terminated worker and start a replacement so the pool keeps its size. */
function retire(pool: Pool, slot: Slot): void {
  if (!pool.all.delete(slot)) return;
  const i = pool.idle.indexOf(slot);
  if (i >= 0) pool.idle.splice(i, 1);
  if (!pool.closed) spawn(pool);
}

function release(pool: Pool, slot: Slot): void {
  if (!pool.all.has(slot)) return;
  const next = pool.waiting.shift();
  if (next) next(slot);
  else pool.idle.push(slot);
}

function take(pool: Pool): Promise<Slot> {
  const slot = pool.idle.pop();
  if (slot) return Promise.resolve(slot);
  return new Promise((resolve) => pool.waiting.push(resolve));
}

function answerThread(pool: Pool): AnswerThread {
  if (pool.answers) return pool.answers;
  const { spec } = pool;
  const worker = new Worker(spec.script, { eval: spec.eval, workerData: { role: 'fail-open' } satisfies WorkerInit, stderr: false });
  const thread: AnswerThread = { worker, pending: new Map() };
  worker.on('message', (msg: WorkerReply) => {
    const p = thread.pending.get(msg.id);
    if (!p) return;
    thread.pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(errorFromWire(msg.error, msg.code));
    else p.resolve(msg);
  });
  const fail = (err: Error) => {
    if (pool.answers === thread) pool.answers = undefined;
    for (const p of thread.pending.values()) p.reject(err);
    thread.pending.clear();
  };
  worker.on('error', (err) => fail(err instanceof Error ? err : new Error(String(err))));
  worker.on('exit', (code) => fail(new Error(`fail-open thread exited with code ${code}`)));
  pool.answers = thread;
  return thread;
}

function failOpenRaw(pool: Pool, raw: Uint8Array, route: AnswerFormat, message: string, started: number): Promise<{ json: Uint8Array; chars: number }> {
  if (pool.closed) return Promise.reject(new Error('server is shutting down'));
  const thread = answerThread(pool);
  const id = pool.nextId++;
  return new Promise((resolve, reject) => {
    thread.pending.set(id, { resolve: (reply) => resolve({ json: reply.json!, chars: reply.chars! }), reject });
    const ask: WorkerRequest = { id, raw, route, failOpen: { message, started } };
    thread.worker.postMessage(ask);
  });
}

/** One job for an idle worker; its reply once the worker answers (or a rejection at abort). */
async function dispatch(pool: Pool, job: Job, signal: AbortSignal | undefined): Promise<WorkerReply> {
  if (pool.closed) throw new Error('server is shutting down');
  const slot = await take(pool);
  const id = pool.nextId++;
  // the session whose memory the worker got (to take in what it recorded)
  let session: SessionMemory | undefined = 'req' in job ? job.req.session : 'output' in job ? job.session : undefined;
  return new Promise<WorkerReply>((resolve, reject) => {
    const onAbort = () => {
      slot.pending.delete(id);
      reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      // The worker may be deep in CPU work: kill it; 'exit' retires it and spawns a new one.
      void slot.worker.terminate();
    };
    if (signal?.aborted) {
      release(pool, slot);
      return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    slot.pending.set(id, {
      memoryFor: async (paths, sessionId, outputs) => {
        // (a shared store loads the session first: the worker waits for it, within the request's time limit)
        if (sessionId !== undefined && 'sessionOf' in job) session = await job.sessionOf(sessionId);
        if (!slot.pending.has(id)) return; // aborted meanwhile
        const files = session!.snapshotOf(paths);
        const reply: WorkerMemory = { id, memory: outputs ? { ...files, outputs: session!.outputs.snapshot() } : files };
        slot.worker.postMessage(reply);
      },
      resolve: (reply) => {
        signal?.removeEventListener('abort', onAbort);
        release(pool, slot);
        // what the worker's copy of the session recorded goes into the session
        if (reply.changes) session?.applyChanges(reply.changes);
        resolve(reply);
      },
      reject: (e) => {
        signal?.removeEventListener('abort', onAbort);
        release(pool, slot);
        reject(e);
      },
    });
    slot.worker.postMessage(jobMessage(id, job));
  });
}

/** A job as a message to a worker: a SessionMemory does not cross threads, so the worker asks for the part this request can use. */
function jobMessage(id: number, job: Job): WorkerRequest {
  if ('raw' in job) return { id, raw: job.raw, route: job.route };
  if ('output' in job) return { id, output: job.output, ...(job.session ? { session: true } : {}) };
  const { session: memory, ...plain } = job.req;
  return { id, req: plain, ...(memory ? { session: true } : {}), ...(job.format ? { format: job.format } : {}) };
}
