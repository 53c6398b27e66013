/**
 * Worker-thread entry for the server's worker pool: one pruner per thread, one request at a time.
 * Messages in: { id, req, memory?, format? }; out: { id, result | json, memory? } or { id, error }
 * (see WorkerRequest).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createPruner } from '../index.js';
import { SessionMemory } from '../core/session/memory.js';
import { answerJson } from './serialize.js';
import type { WorkerReply, WorkerRequest } from './workerPool.js';

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
lowerThreadPriority();

interface WorkerInit {
  scorer?: 'heuristic' | 'learned';
  modelDir?: string;
}

const init = (workerData ?? {}) as WorkerInit;
const pruner = createPruner({ scorer: init.scorer, modelDir: init.modelDir });

parentPort!.on('message', async (msg: WorkerRequest) => {
  try {
    const session = msg.memory ? SessionMemory.fromSnapshot(msg.memory) : undefined;
    const result = await pruner.prune({ ...msg.req, session });
    const reply: WorkerReply = {
      id: msg.id,
      ...(msg.format ? { json: answerJson(msg.req, result, msg.format) } : { result }),
      ...(session ? { memory: session.snapshotFor(msg.req.code, msg.req.path) } : {}),
    };
    parentPort!.postMessage(reply);
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    parentPort!.postMessage({
      id: msg.id,
      error: err instanceof Error ? err.message : String(err),
      code: typeof code === 'string' ? code : undefined,
    });
  }
});
