/**
 * Session memories in a real redis-server (one per test file, its own port, nothing persisted),
 * shared by replicas: in-process apps for most cases, two `skim serve` processes for one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkimError } from '../../src/core/errors.js';
import type { SessionSnapshot } from '../../src/core/session/memory.js';
import { createPruner } from '../../src/index.js';
import { createApp } from '../../src/server/app.js';
import { openRedisStore, type RedisSessionStore, type RedisStoreOptions } from '../../src/server/redisSessions.js';
import { inlineRunner } from '../../src/server/runner.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { freePort, haveRedis, REDIS_BIN, type RedisServer, redisSkipReason, startRedis } from '../helpers/redis.js';
import { makeWorkspace } from '../mcp/workspaceFixture.js';

const SESSION = readFileSync(fileURLToPath(new URL('../../examples/playground-http_session.py', import.meta.url)), 'utf8');
const QUESTION = 'How does the session choose which proxy to use for a URL, and when is the proxy bypassed?';
const seenMarker = /lines unchanged since an earlier read \(\d+-\d+\)/;
const NO_DEADLINE = 2 ** 31 - 1;
const CLIENT = 'replicas-test';
/** Did the answer say the session store could not be used? */
const storeWarned = (r: { diagnostics: { code: string }[] }) => r.diagnostics.some((d) => d.code === 'session-store-unavailable');

if (redisSkipReason) console.warn(`skipping the Redis session store tests: ${redisSkipReason}`);

describe.skipIf(redisSkipReason !== '')('session memories in Redis, shared by replicas', () => {
  let redis: RedisServer;
  const stores: RedisSessionStore[] = [];
  const pruner = createPruner();

  beforeAll(async () => {
    // (under CI=true the tests run without the binary too, and fail here)
    if (!haveRedis) throw new Error(`${REDIS_BIN} not found: CI installs redis-server (.ci/run)`);
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await redis?.stop();
  });

  /** A replica: an app with its own connection to the store. */
  async function replica(opts: Partial<RedisStoreOptions> = {}) {
    const store = await openRedisStore({ url: redis.url, timeoutMs: 2000, ...opts });
    stores.push(store);
    const app = createApp({ runner: inlineRunner(pruner), timeoutMs: NO_DEADLINE, log: () => {}, sessionStore: store });
    const post = (path: string, body: unknown) =>
      app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-skim-client': CLIENT }, body: JSON.stringify(body) });
    const read = async (body: Record<string, unknown>) => (await post('/v1/prune', body)).json();
    return { app, store, post, read };
  }

  /** The session as the store holds it (undefined: none). */
  async function stored(store: RedisSessionStore, id: string): Promise<SessionSnapshot | undefined> {
    const data = await redis.client.hget(store.keyOf(id, `key:${CLIENT}`), 'd');
    return data ? (JSON.parse(data) as SessionSnapshot) : undefined;
  }

  it('a read on one replica folds on another; /health names the store', async () => {
    const a = await replica();
    const b = await replica();
    expect((await a.read({ code: SESSION, path: 'session.py', session: 'shared' })).text).toBe(SESSION);
    const onB = await b.read({ code: SESSION, path: 'session.py', session: 'shared', query: QUESTION });
    expect(onB.text).toMatch(seenMarker);
    expect(onB.seenLines).toBeGreaterThan(100);
    expect(storeWarned(onB)).toBe(false);
    // another session, or another client's session of the same id, folds nothing
    expect((await b.read({ code: SESSION, path: 'session.py', session: 'other', query: QUESTION })).text).not.toMatch(seenMarker);
    const foreign = await b.app.request('/v1/prune', {
      method: 'POST',
      body: JSON.stringify({ code: SESSION, path: 'session.py', session: 'shared', query: QUESTION }),
    });
    expect((await foreign.json()).text).not.toMatch(seenMarker);
    const health = await (await a.app.request('/health')).json();
    expect(health.sessions).toMatchObject({ store: 'redis', state: 'ready' });
    expect((await stored(a.store, 'shared'))?.reads).toBe(2);
  });

  it('two replicas writing one session at once lose no update', async () => {
    const a = await replica();
    const b = await replica();
    const n = 12;
    const file = (i: number) => Array.from({ length: 20 }, (_, k) => `value_${i}_${k} = compute(${i}, ${k})`).join('\n') + '\n';
    // all reads in flight together: each loads the session before any has written it back
    const answers = await Promise.all(Array.from({ length: 2 * n }, (_, i) => (i % 2 ? b : a).read({ code: file(i), path: `mod_${i}.py`, session: 'busy' })));
    for (const r of answers) expect(storeWarned(r)).toBe(false);
    const s = await stored(a.store, 'busy');
    expect(s?.reads).toBe(2 * n);
    expect(s?.files.map(([p]) => p).sort()).toEqual(Array.from({ length: 2 * n }, (_, i) => `mod_${i}.py`).sort());
    for (const [path, lines, reads] of s!.files) {
      expect(lines).toHaveLength(20);
      expect(reads).toBe(1);
      expect(path).toMatch(/^mod_\d+\.py$/);
    }
  });

  it('a session expires after its time to live unused, and a use refreshes it', async () => {
    const a = await replica({ ttlMs: 60_000 });
    await a.read({ code: SESSION, path: 'session.py', session: 'ttl' });
    const key = a.store.keyOf('ttl', `key:${CLIENT}`);
    // shorten what is left, then use it: the use sets the whole time to live again
    await redis.client.pexpire(key, 1000);
    await a.app.request('/v1/outputs/none?session=ttl', { headers: { 'x-skim-client': CLIENT } });
    expect(await redis.client.pttl(key)).toBeGreaterThan(30_000);

    const short = await replica({ ttlMs: 150 });
    await short.read({ code: SESSION, path: 'session.py', session: 'ttl-short' });
    const shortKey = short.store.keyOf('ttl-short', `key:${CLIENT}`);
    expect(await redis.client.exists(shortKey)).toBe(1);
    // (polled, at most 400 times 25 ms)
    for (let i = 0; i < 400 && (await redis.client.exists(shortKey)) === 1; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await redis.client.exists(shortKey)).toBe(0);
    const after = await short.read({ code: SESSION, path: 'session.py', session: 'ttl-short', query: QUESTION });
    expect(after.text).not.toMatch(seenMarker);
  });

  it('a session is capped in size: oldest files out; a write still over the cap is refused with a warning', async () => {
    const cap = 20_000;
    const a = await replica({ maxSessionBytes: cap });
    const file = (i: number) => Array.from({ length: 40 }, (_, k) => `setting_${i}_${k} = load("${'x'.repeat(20)}", ${k})`).join('\n') + '\n';
    for (let i = 0; i < 8; i++)
      expect(await a.read({ code: file(i), path: `conf_${i}.py`, session: 'capped' })).toSatisfy((r: Parameters<typeof storeWarned>[0]) => !storeWarned(r));
    const value = await redis.client.hget(a.store.keyOf('capped', `key:${CLIENT}`), 'd');
    expect(Buffer.byteLength(value!)).toBeLessThanOrEqual(cap);
    const paths = (await stored(a.store, 'capped'))!.files.map(([p]) => p);
    expect(paths).toContain('conf_7.py');
    expect(paths).not.toContain('conf_0.py');
    expect(paths.length).toBeLessThan(8);
    // the newest file folds, the oldest no longer does
    expect((await a.read({ code: file(7), path: 'conf_7.py', session: 'capped', query: 'where is setting_7_3 loaded?' })).text).toMatch(seenMarker);
    expect((await a.read({ code: file(0), path: 'conf_0.py', session: 'capped', query: 'where is setting_0_3 loaded?' })).text).not.toMatch(seenMarker);

    // an output kept behind a handle that alone is larger than the cap: not written, said in the answer
    const before = await stored(a.store, 'capped');
    const log = Array.from({ length: 600 }, (_, k) => `test_case_${k} ... ok (${k} ms) ${'y'.repeat(20)}`).join('\n') + '\n';
    const out = await (await a.post('/v1/prune', { command: 'make check', code: log, session: 'capped' })).json();
    expect(out.warnings.join('\n')).toMatch(/size cap/);
    expect(storeWarned(out)).toBe(true);
    expect((await stored(a.store, 'capped'))?.outputs?.outputs ?? []).toEqual(before?.outputs?.outputs ?? []);
  });

  it('redis killed mid-run: every request is answered with a warning; after its restart, memory works again', async () => {
    const own = await startRedis();
    try {
      const store = await openRedisStore({ url: own.url, timeoutMs: 500 });
      stores.push(store);
      const app = createApp({ runner: inlineRunner(pruner), timeoutMs: NO_DEADLINE, log: () => {}, sessionStore: store });
      const read = async (query?: string) => {
        const res = await app.request('/v1/prune', { method: 'POST', body: JSON.stringify({ code: SESSION, path: 'session.py', session: 'k', query }) });
        expect(res.status).toBe(200);
        return { body: await res.json(), warning: res.headers.get('x-skim-warning') };
      };
      const health = async () => (await (await app.request('/health')).json()).sessions;
      expect((await read()).warning).toBeNull();
      expect((await read(QUESTION)).body.text).toMatch(seenMarker);

      await own.kill();
      for (let i = 0; i < 5; i++) {
        const { body, warning } = await read(`question ${i} about proxies?`);
        expect(warning).toBe('session-store-unavailable');
        expect(storeWarned(body)).toBe(true);
        expect(body.text).not.toMatch(seenMarker);
        expect(body.text).toMatch(/proxy/);
      }
      expect((await health()).state).toBe('unavailable');
      // forgetting cannot be done while the store is down: the client is told so
      const forget = await app.request('/v1/sessions/k/forget', { method: 'POST', body: '{}' });
      expect(forget.status).toBe(503);

      await own.start();
      // (the client reconnects by itself: polled, at most 400 times 25 ms)
      for (let i = 0; i < 400 && (await health()).state !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
      expect((await health()).state).toBe('ready');
      const first = await read();
      expect(first.warning).toBeNull();
      expect(storeWarned(first.body)).toBe(false);
      expect((await read(QUESTION)).body.text).toMatch(seenMarker);
    } finally {
      await own.stop();
    }
  });

  it('a wrong store URL is a usage error at start', async () => {
    await expect(openRedisStore({ url: 'http://127.0.0.1:6379' })).rejects.toMatchObject({
      code: 'EUSAGE',
      message: expect.stringMatching(/unsupported store/),
    });
    await expect(openRedisStore({ url: 'not a url' })).rejects.toBeInstanceOf(SkimError);
    const closed = await freePort();
    await expect(openRedisStore({ url: `redis://127.0.0.1:${closed}`, connectTimeoutMs: 2000 })).rejects.toMatchObject({
      code: 'EUSAGE',
      message: expect.stringMatching(/cannot reach redis:\/\/127\.0\.0\.1:\d+\/?: connect ECONNREFUSED/),
    });
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--session-store', `redis://127.0.0.1:${closed}`], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(64);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/--session-store: cannot reach/);
  });

  it('the CLI (skim cat --session) keeps its sessions in the store SKIM_SESSION_STORE names', async () => {
    const cat = (...args: string[]) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'cat', '--session', 'cli-run', 'examples/playground-http_session.py', ...args], {
          cwd: ROOT,
          env: { ...process.env, SKIM_SESSION_STORE: redis.url, SKIM_DAEMON: '0', SKIM_SESSION_DIR: '/nonexistent/skim-sessions' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout!.on('data', (d) => (out += d));
        child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`skim cat exited with ${code}`))));
      });
    expect(await cat()).not.toMatch(seenMarker);
    expect(await cat('-f', QUESTION)).toMatch(seenMarker);
    expect(await redis.client.exists((await openStoreOnce()).keyOf('cli-run', 'local'))).toBe(1);
  });

  /** A store on the test's redis-server, to name keys. */
  async function openStoreOnce(): Promise<RedisSessionStore> {
    const store = await openRedisStore({ url: redis.url });
    stores.push(store);
    return store;
  }

  it('two skim mcp processes with one named session share it through the store', async () => {
    const fx = makeWorkspace();
    const mcp = async () => {
      const client = new Client({ name: 'skim-redis-test', version: '0.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--root', fx.root],
          cwd: ROOT,
          env: {
            ...(process.env as Record<string, string>),
            SKIM_SESSION_STORE: redis.url,
            SKIM_SESSION: 'mcp-run',
            SKIM_SESSION_DIR: '/nonexistent/skim-sessions',
          },
          stderr: 'ignore',
        }),
      );
      return client;
    };
    const [a, b] = await Promise.all([mcp(), mcp()]);
    const read = (client: Client, q: string, compacted?: boolean) =>
      client
        .callTool({ name: 'read_file', arguments: { path: 'pkg/session.py', context_focus_question: q, context_compacted: compacted } })
        .then((r) => (r as { content: Array<{ text?: string }> }).content.map((c) => c.text ?? '').join(''));
    try {
      const folded = /unchanged since an earlier read/;
      expect(await read(a, 'Which proxy does a URL get?')).not.toMatch(folded);
      expect(await read(b, 'Which proxy does an https URL get?')).toMatch(folded);
      // compacted on B: the shared session forgets, B's read folds nothing; what B then showed folds on A
      expect(await read(b, 'Where is the proxy bypassed?', true)).not.toMatch(folded);
      expect(await read(a, 'Which URLs skip the proxy?')).toMatch(folded);
    } finally {
      await Promise.all([a.close(), b.close()]);
      fx.cleanup();
    }
  });

  it('two skim serve processes share one session', async () => {
    const start = (): Promise<{ child: ChildProcess; url: string }> => {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--workers', '1', '-q'], {
        cwd: ROOT,
        env: { ...process.env, SKIM_SESSION_STORE: redis.url },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      return new Promise((resolve, reject) => {
        child.stderr!.on('data', (d) => {
          stderr += d;
          const m = /listening on (http:\/\/[\d.]+:\d+) .*sessions in redis:/.exec(stderr);
          if (m) resolve({ child, url: m[1] });
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
      });
    };
    const servers = await Promise.all([start(), start()]);
    try {
      const [a, b] = servers.map(
        ({ url }) =>
          (body: object) =>
            fetch(`${url}/v1/prune`, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.json()),
      );
      expect((await a({ code: SESSION, path: 'session.py', session: 'procs' })).text).toBe(SESSION);
      const onB = await b({ code: SESSION, path: 'session.py', session: 'procs', query: QUESTION });
      expect(onB.text).toMatch(seenMarker);
      // and back: B's read (what it showed) folds on A
      const onA = await a({ code: SESSION, path: 'session.py', session: 'procs', query: 'Where are proxy environment variables read?' });
      expect(onA.seenLines).toBeGreaterThan(100);
      const health = await (await fetch(`${servers[1].url}/health`)).json();
      expect(health.sessions).toMatchObject({ store: 'redis', state: 'ready' });
    } finally {
      await Promise.all(
        servers.map(({ child }) => {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          return exited;
        }),
      );
    }
  });
});
