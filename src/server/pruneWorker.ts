/**
 * Worker-thread entry for the server's worker pool: one pruner per thread, one request at a time.
 * Messages in: { id, req | output | raw, session?, format? } and, for a session, { id, memory }; out:
 * { id, paths, outputs? } (the files a session read names; an output asks for the session's
 * outputs), then { id, result | json, memory? } or { id, error } (see WorkerRequest).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SkimError } from '../core/errors.js';
import { ingest } from '../core/ingest/ingest.js';
import type { OutputWireRequest } from '../core/request.js';
import { SessionMemory, type SessionSnapshot } from '../core/session/memory.js';
import { configureCore } from '../core/settings.js';
import { detectLanguage, normalizeLanguage } from '../core/syntax/index.js';
import type { PruneRequest, PruneResult } from '../core/types.js';
import { createPruner } from '../index.js';
import { bodyText, outputBodyOf, parseJsonText, requestOf } from './requests.js';
import { type AnswerFormat, answerJson, outputAnswerJson, rawFailOpen } from './serialize.js';
import type { WorkerInit, WorkerMemory, WorkerReply, WorkerRequest } from './workerPool.js';

/**
 * Pruning yields the CPU to the server's main thread: on a machine with as many busy workers as
 * cores, the thread that answers /health and moves bytes would otherwise wait for a time slice.
 * Linux only (a thread's nice value, set through its thread id); elsewhere nothing changes.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed: keep the default priority
  }
}

const init = (workerData ?? {}) as WorkerInit;
configureCore(init.core);
// (the fail-open thread keeps the default priority: its answers are overdue already)
if (init.role !== 'fail-open') lowerThreadPriority();
const pruner = createPruner({ scorer: init.scorer, modelDir: init.modelDir });

/** The files a read names: its path, and the files of grep or `==>` output. */
function pathsOf(req: PruneRequest): string[] {
  const language = req.language ? normalizeLanguage(req.language) : undefined;
  const doc = ingest(req.code, { path: req.path, language, detectLanguage, firstLine: req.firstLine, grepFiles: req.grepFiles });
  const paths = new Set<string>();
  if (req.path !== undefined) paths.add(req.path);
  for (const seg of doc.segments) if (seg.path) paths.add(seg.path);
  return [...paths];
}

/** The session memory the main thread sends for the request being handled (one at a time). */
let memoryArrived: ((m: SessionSnapshot) => void) | null = null;

/** The part of the session this request can use: ask the main thread for the files it names (and, for an output, the session's outputs). */
function sessionFor(id: number, paths: string[], sessionId?: string, outputs = false): Promise<SessionMemory> {
  return new Promise((resolve) => {
    memoryArrived = (m) => resolve(SessionMemory.fromSnapshot(m));
    const ask: WorkerReply = { id, paths, ...(sessionId !== undefined ? { sessionId } : {}), ...(outputs ? { outputs: true } : {}) };
    parentPort!.postMessage(ask);
  });
}

/** What a message asks for: a file prune (reading a raw body here), or a command's output; its answer format and session, if any. */
type Work =
  | { req: PruneRequest; format?: AnswerFormat; sessionId?: string; session: boolean }
  | { output: OutputWireRequest; sessionId?: string; session: boolean };

function workIn(msg: WorkerRequest): Work {
  if (msg.raw && msg.route) {
    const json = parseJsonText(bodyText(msg.raw));
    const out = outputBodyOf(msg.route, json);
    if (out) return { output: out.req, sessionId: out.session, session: out.session !== undefined };
    const { req, session } = requestOf(msg.route, json);
    return { req, format: msg.route, sessionId: session, session: session !== undefined };
  }
  if (msg.output) return { output: msg.output, session: msg.session === true };
  return { req: msg.req!, format: msg.format, session: msg.session === true };
}

/** The answer (JSON bytes or the result) and what this copy of the session recorded. */
async function answer(id: number, work: Work): Promise<{ json?: Buffer; result?: PruneResult; session?: SessionMemory }> {
  if ('output' in work) {
    const session = work.session ? await sessionFor(id, [], work.sessionId, true) : undefined;
    return { json: Buffer.from(outputAnswerJson(work.output, session?.outputs)), session };
  }
  const { req, format, sessionId } = work;
  const session = work.session ? await sessionFor(id, pathsOf(req), sessionId) : undefined;
  const result = await pruner.prune({ ...req, session });
  // the answer as bytes, moved to the main thread without a copy (a 5 MB string would be copied
  // into its heap, and collecting those shows up as pauses of its event loop)
  return format ? { json: Buffer.from(answerJson(req, result, format)), session } : { result, session };
}

parentPort!.on('message', async (msg: WorkerRequest | WorkerMemory) => {
  if ('memory' in msg) {
    memoryArrived?.(msg.memory);
    memoryArrived = null;
    return;
  }
  try {
    if (msg.failOpen) {
      const { pieces, chars } = rawFailOpen(msg.raw!, msg.route!, msg.failOpen.message, msg.failOpen.started);
      const json = Buffer.from([...pieces].join(''));
      const reply: WorkerReply = { id: msg.id, json, chars };
      parentPort!.postMessage(reply, ownBuffer(json) ? [json.buffer as ArrayBuffer] : []);
      return;
    }
    const { json, result, session } = await answer(msg.id, workIn(msg));
    const reply: WorkerReply = {
      id: msg.id,
      ...(json ? { json } : { result }),
      // (what its copy of the session recorded: the main thread applies it to the session)
      ...(session ? { changes: session.changes() } : {}),
    };
    parentPort!.postMessage(reply, json && ownBuffer(json) ? [json.buffer as ArrayBuffer] : []);
  } catch (err) {
    const reply: WorkerReply = {
      id: msg.id,
      error: err instanceof Error ? err.message : String(err),
      ...(err instanceof SkimError ? { code: err.code } : {}),
    };
    parentPort!.postMessage(reply);
  }
});

/** A Buffer that may be transferred: a small one may sit in a shared pool (copied, not transferred). */
function ownBuffer(b: Buffer): boolean {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
}
