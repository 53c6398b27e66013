/**
 * A real redis-server for a test file: on a port of its own, nothing persisted. Without the binary
 * the tests that need it are skipped with the reason, except under CI (CI=true), where its absence
 * fails them.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export const REDIS_BIN = process.env.SKIM_TEST_REDIS_SERVER ?? 'redis-server';

/** Is redis-server there to run? */
export const haveRedis = spawnSync(REDIS_BIN, ['--version'], { stdio: 'ignore' }).status === 0;

/** Why the Redis tests are skipped ('' when they run): under CI they run, and fail, without it. */
export const redisSkipReason =
  haveRedis || process.env.CI === 'true' ? '' : `${REDIS_BIN} not found (install redis-server; under CI=true these tests fail instead)`;

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  url: string;
  /** A client of its own, for looking at what the store wrote. */
  client: Redis;
  /** SIGKILL the server (the store's clients see the connection drop). */
  kill(): Promise<void>;
  /** Start it again on the same port (empty: nothing was persisted). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Start redis-server on a free port and wait until it answers PING (at most `tries` times 50 ms). */
export async function startRedis(tries = 200): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(REDIS_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      for (let i = 0; ; i++) {
        try {
          await probe.connect();
          if ((await probe.ping()) === 'PONG') return;
        } catch (err) {
          if (i >= tries) throw new Error(`redis-server on port ${port} did not answer: ${(err as Error).message}`);
          probe.disconnect();
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: (n) => Math.min(n * 50, 500) });
  client.on('error', () => {});
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    client,
    kill,
    start,
    stop: async () => {
      client.disconnect();
      await kill();
    },
  };
}
