/**
 * A prune that fails open through the worker pool: the answer (the input whole) is read from the
 * body and written by the pool's fail-open thread, not by the main thread, which only sends its
 * bytes (a 5 MB body read and written back on the main thread held /health for a few hundred
 * milliseconds). Counted by src/core/work.ts (this thread only), not timed. Without that thread the
 * main thread makes the same answer itself.
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
const CODE = LOGGING.repeat(Math.ceil(1e6 / LOGGING.length));
const QUERY = 'Where are the caplog records replaced instead of cleared?';

/** An answer's JSON with its time taken (`ms`) set to 0: the one field two runs do not share. */
const withoutTime = (json: string) => json.replace(/"ms":\d+(\.\d+)?/, '"ms":0');

describe('fail-open answers through the worker pool', () => {
  it('are made off the main thread, the same bytes as the main thread makes', async () => {
    const pool = createWorkerPool({ size: 1 });
    const failOpens: string[] = [];
    try {
      // a 1 ms time limit: every prune fails open
      const options = { timeoutMs: 1, maxConcurrent: 1, log: (line: string) => (line.includes('fail-open') ? failOpens.push(line) : undefined) };
      const app = createApp({ runner: pool, ...options });
      const onMainThread = createApp({ runner: { ...pool, failOpenRaw: undefined }, ...options });
      const answers: Record<string, string[]> = {};
      let read = 0;
      for (const route of ['/v1/prune', '/prune']) {
        const body = JSON.stringify({ code: CODE, query: QUERY, path: 'logging.py' });
        const before = workSnapshot();
        const res = await app.request(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await res.text();
        read += workSince(before).bodyBytesRead;
        expect(res.status).toBe(200);
        const same = await onMainThread.request(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        answers[route] = [withoutTime(text), withoutTime(await same.text())];
      }
      expect(read).toBe(0);
      const v1 = JSON.parse(answers['/v1/prune']![0]!);
      expect(v1.text).toBe(CODE);
      expect(v1.error).toMatch(/time limit/);
      expect(checkInvariants(CODE, v1)).toBeNull();
      expect(JSON.parse(answers['/prune']![0]!).pruned_code).toBe(CODE);
      for (const [offThread, mainThread] of Object.values(answers)) expect(offThread).toBe(mainThread);
      // both logged alike, with the text's length
      expect(failOpens).toHaveLength(4);
      for (const line of failOpens) expect(line).toBe(`skim serve: fail-open (time limit of 1 ms exceeded) for ${CODE.length} chars`);
    } finally {
      await pool.close();
    }
  }, 120_000);
});
