/**
 * What a client can hold on the server: a connection that sends nothing or sends its headers
 * slowly is closed; connections over the per-client cap are closed at once while another client
 * still gets in; a request whose client went away stops its work and frees its slot; a freed slot
 * goes to the client running the fewest requests. Loopback only (127.0.0.1 and 127.0.0.2),
 * ephemeral ports; waits are for events, each bounded by the test's own time limit.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { PruneRequest, PruneResult } from '../../src/core/types.js';
import { createApp } from '../../src/server/app.js';
import { Semaphore } from '../../src/server/limits.js';
import { type Listening, listen } from '../../src/server/listen.js';
import type { PruneRunner } from '../../src/server/runner.js';
import { fakePrune, fakeRunner } from './fakeRunner.js';

const FAST = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, checkEveryMs: 100 };

let server: Listening | undefined;
afterEach(async () => {
  await server?.close(100);
  server = undefined;
});

function open(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, localAddress }, () => resolve(s));
    s.on('error', reject);
  });
}

const closed = (s: Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));

function health(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/health`, { localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('connections a client cannot hold', () => {
  it('a connection that sends nothing is closed', async () => {
    server = await listen(createApp({ runner: fakeRunner(), log: () => {} }), '127.0.0.1', 0, FAST);
    const s = await open(server.port);
    s.on('error', () => {});
    await closed(s);
    expect(s.destroyed).toBe(true);
  }, 30_000);

  it('a client sending its headers one byte at a time is cut off', async () => {
    server = await listen(createApp({ runner: fakeRunner(), log: () => {} }), '127.0.0.1', 0, FAST);
    const s = await open(server.port);
    s.on('error', () => {});
    let answer = '';
    s.on('data', (d) => (answer += d));
    const head = 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(10_000);
    let sent = 0;
    const drip = setInterval(() => {
      if (!s.destroyed && sent < head.length) s.write(head[sent++]);
    }, 20);
    await closed(s);
    clearInterval(drip);
    expect(sent).toBeLessThan(head.length); // cut off long before it finished
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  }, 30_000);

  it("connections that sent part of a request are answered 408 each on their own, not by node's periodic check", async () => {
    // node's check comes long after the header time limit: a connection it closes was missed by its own timer
    server = await listen(createApp({ runner: fakeRunner(), log: () => {} }), '127.0.0.1', 0, { ...FAST, checkEveryMs: 5_000 });
    // node's check makes an error (with a stack trace) for each expired connection, all in one go
    let clientErrors = 0;
    server.server.on('clientError', (_err: Error, socket: Socket) => {
      clientErrors++;
      socket.destroy();
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const s = await open(server!.port);
        s.on('error', () => {});
        let answer = '';
        s.on('data', (d) => (answer += d));
        s.write('GET /heal');
        await closed(s);
        return answer;
      }),
    );
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(clientErrors).toBe(0);
  }, 30_000);

  it('connections over the per-client cap are closed at once; another client still gets in', async () => {
    server = await listen(createApp({ runner: fakeRunner(), log: () => {} }), '127.0.0.1', 0, { maxConnectionsPerClient: 5 });
    const sockets = await Promise.all(Array.from({ length: 8 }, () => open(server!.port)));
    for (const s of sockets) s.on('error', () => {});
    // the server closes exactly the three over the cap
    const over = await new Promise<Socket[]>((resolve) => {
      const gone: Socket[] = [];
      for (const s of sockets)
        s.once('close', () => {
          gone.push(s);
          if (gone.length === 3) resolve(gone);
        });
    });
    expect(over).toHaveLength(3);
    expect(await health(server.url, '127.0.0.2')).toBe(200);
    expect(sockets.filter((s) => !s.destroyed)).toHaveLength(5);
    for (const s of sockets) s.destroy();
  }, 30_000);
});

/** A runner whose prune waits until its signal fires (or 5 s), counting the aborts it saw. */
function waitingRunner(): PruneRunner & { started: number; aborted: number } {
  const r = {
    kind: 'waiting',
    started: 0,
    aborted: 0,
    prune(req: PruneRequest, signal?: AbortSignal): Promise<PruneResult> {
      r.started++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(fakePrune(req)), 5000);
        signal?.addEventListener('abort', () => {
          r.aborted++;
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    },
    close: async () => {},
  };
  return r;
}

describe('work of a client that went away', () => {
  it('is stopped and its slot freed', async () => {
    const runner = waitingRunner();
    server = await listen(createApp({ runner, log: () => {}, maxConcurrent: 1, timeoutMs: 20_000 }), '127.0.0.1', 0);
    const req = request(`${server.url}/v1/prune`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } });
    req.on('error', () => {});
    req.end(JSON.stringify({ code: 'a proxy\nb\n', query: 'proxy' }));
    while (runner.started === 0) await new Promise((r) => setTimeout(r, 10));
    req.destroy();
    while (runner.aborted === 0) await new Promise((r) => setTimeout(r, 10));
    expect(runner.aborted).toBe(1);
    const h = await (await fetch(`${server.url}/health`)).json();
    expect(h.active).toBe(0);
  }, 30_000);
});

describe('a fair share of the slots', () => {
  it('a freed slot goes to the client running the fewest, not to the one that queued first', async () => {
    const slots = new Semaphore(2, 64);
    const a1 = await slots.acquire(undefined, 'slow');
    await slots.acquire(undefined, 'slow');
    const order: string[] = [];
    const queued = [
      slots.acquire(undefined, 'slow').then(() => order.push('slow')),
      slots.acquire(undefined, 'slow').then(() => order.push('slow')),
      slots.acquire(undefined, 'other').then(() => order.push('other')),
    ];
    a1();
    await Promise.race(queued);
    expect(order).toEqual(['other']);
  });

  it('one client fills at most half of the wait queue', async () => {
    const slots = new Semaphore(1, 4);
    await slots.acquire(undefined, 'a');
    const waits = [slots.acquire(undefined, 'a'), slots.acquire(undefined, 'a')];
    await expect(slots.acquire(undefined, 'a')).rejects.toThrow(/busy/);
    const other = slots.acquire(undefined, 'b');
    expect(slots.waiting).toBe(3);
    void waits;
    void other;
  });
});

describe('large inputs never hold every worker', () => {
  it('with two workers, large requests run one at a time and a small one still gets a worker', async () => {
    const running: string[] = [];
    const release: Array<() => void> = [];
    const runner: PruneRunner = {
      kind: 'held',
      prune(req) {
        running.push(req.code.length > 1 << 20 ? 'large' : 'small');
        return new Promise((resolve) => release.push(() => resolve(fakePrune(req))));
      },
      close: async () => {},
    };
    const app = createApp({ runner, log: () => {}, maxConcurrent: 2, timeoutMs: 20_000 });
    const send = (code: string) =>
      app.request('/v1/prune', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, query: 'x' }) });
    const large = 'x = 1\n'.repeat(200_000);
    const answers = [send(large), send(large), send(large)];
    while (running.length < 1) await new Promise((r) => setTimeout(r, 5));
    answers.push(send('x = 1\n'));
    while (running.length < 2) await new Promise((r) => setTimeout(r, 5));
    expect(running).toEqual(['large', 'small']);
    // the rest run as workers free up, the large ones still one at a time
    while (release.length > 0 || running.length < 4) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  }, 20_000);
});
