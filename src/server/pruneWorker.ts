/**
 * Worker-thread entry for the server's worker pool: one pruner per thread, one request at a time.
 * Messages in: { id, req, memory? }; out: { id, result, memory? } or { id, error } (see WorkerRequest).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createPruner } from '../index.js';
import { SessionMemory } from '../core/session/memory.js';
import type { WorkerReply, WorkerRequest } from './workerPool.js';

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
    const reply: WorkerReply = { id: msg.id, result, ...(session ? { memory: session.snapshotFor(msg.req.code, msg.req.path) } : {}) };
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
