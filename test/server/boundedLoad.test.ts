/**
 * Bounded load, by what is done rather than how long it takes: the server with two workers and a
 * 1.5 s time limit gets ordinary reads, /health probes and bombs (2 MB of Python that may outlast
 * the limit, 2 MB of spaces) at once. Every request is answered (200), every answer keeps its
 * lines honestly (a bomb at its limit fails open: the input whole), and the main thread parses and
 * tokenizes nothing: pruning is the workers' job, and a fail-open answer counts no tokens (before,
 * the server tokenized a timed-out bomb on its main thread and /health stalled behind it). Counted
 * by src/core/work.ts, which counts this thread only. The latencies of the same traffic are
 * measured by scripts/load-bounded.ts (BENCHMARKS.md, "Bounded load").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workSince, workSnapshot } from '../../src/core/work.js';
import { createApp } from '../../src/server/app.js';
import { createWorkerPool } from '../../src/server/workerPool.js';
import { ROOT } from '../helpers/cli.js';
import { checkInvariants } from '../helpers/invariants.js';

const LOGGING = readFileSync(path.join(ROOT, 'examples/logging.py'), 'utf8');
const QUERY = 'Where are the caplog records replaced instead of cleared?';

describe('bounded load through the worker pool', () => {
  it('answers every request, keeps every answer honest, and does no pruning work on the main thread', async () => {
    const pool = createWorkerPool({ size: 2 });
    try {
      const app = createApp({ runner: pool, timeoutMs: 1500, maxConcurrent: 2, log: () => {} });
      const post = (code: string) =>
        app.request('/v1/prune', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ code, query: QUERY, path: 'logging.py' }),
        });
      const ordinary = LOGGING.split('\n').slice(0, 400).join('\n') + '\n';
      expect((await post(ordinary)).status).toBe(200); // the workers are warm
      const bombs = [LOGGING.repeat(Math.ceil(2e6 / LOGGING.length)), ' '.repeat(2_000_000)];
      const inputs = [ordinary, bombs[0]!, ordinary, bombs[1]!, ordinary, ordinary];

      const before = workSnapshot();
      const [answers, health] = await Promise.all([
        Promise.all(inputs.map(async (code) => ({ code, res: await post(code) }))),
        Promise.all(Array.from({ length: 10 }, () => app.request('/health'))),
      ]);
      const done = workSince(before);

      for (const h of health) expect(h.status).toBe(200);
      for (const { code, res } of answers) {
        expect(res.status).toBe(200);
        const r = await res.json();
        expect(checkInvariants(code, r)).toBeNull();
      }
      expect(done).toEqual({ parses: 0, parsedChars: 0, bpeSteps: 0, tokenizedChars: 0, bodyBytesRead: 0 });
    } finally {
      await pool.close();
    }
  }, 120_000);
});
