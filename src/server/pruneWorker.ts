/**
 * Worker-thread entry for the server's worker pool: one pruner per thread, one request at a time.
 * Messages in: { id, req }; out: { id, result } or { id, error }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createPruner } from '../index.js';
import type { PruneRequest } from '../core/types.js';

interface WorkerInit {
  scorer?: 'heuristic' | 'learned';
  modelDir?: string;
}

const init = (workerData ?? {}) as WorkerInit;
const pruner = createPruner({ scorer: init.scorer, modelDir: init.modelDir });

parentPort!.on('message', async (msg: { id: number; req: PruneRequest }) => {
  try {
    const result = await pruner.prune(msg.req);
    parentPort!.postMessage({ id: msg.id, result });
  } catch (err) {
    const code = (err as { code?: unknown })?.code;
    parentPort!.postMessage({
      id: msg.id,
      error: err instanceof Error ? err.message : String(err),
      code: typeof code === 'string' ? code : undefined,
    });
  }
});
