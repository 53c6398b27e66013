/**
 * A bounded load run against `skim serve`: no single request, client or connection may stall the
 * server or grow its memory past its budget.
 *
 *   npx tsx scripts/load-bounded.ts [--duration 15] [--connections 4] [--bomb-mb 5] [--timeout 10000]
 *                                   [--workers 2] [--session-mb 16] [--attack-mb 1] [--idle 20000]
 *                                   [--slow-clients N] [--file F --query Q] [--json OUT] [--server-root DIR] [--from-source]
 *
 * The server is the built one (bin/skim.js: `npm run build` first), as users run it; --from-source
 * (or a checkout without dist/) runs src/ through tsx instead.
 * Starts `skim serve` as a child process on 127.0.0.1 (an ephemeral port, --session-memory
 * --session-mb), warms it up, then for --duration seconds at once, each kind of client from its own
 * loopback address (the server shares its workers per client address):
 *   - autocannon (127.0.0.1): --connections connections POSTing a 1,000-line file with its goal
 *     hint to /v1/prune, and one more connection sending the same request in a loop that counts
 *     the answers that failed open;
 *   - one client sending bombs (127.0.0.2), one after another: --bomb-mb MB of spaces as `code` to
 *     /v1/prune and to /prune (SWE-Pruner wire) and as the `query` of /prune, then as many MB of
 *     Python (pruning it may take longer than the time limit: it then fails open at the limit);
 *   - the memory attack (127.0.0.3): a new session id with each request, --attack-mb MB of code
 *     and no query, so that every read is remembered whole;
 *   - --slow-clients clients (default: one per worker, 127.0.0.10 and up), each sending the
 *     --bomb-mb MB of Python that takes about the time limit, one after another;
 *   - --idle connection attempts (127.0.1.1 to 127.0.1.80), held open, half of them silent and
 *     half having sent part of a request line;
 *   - a probe (its own thread, 127.0.0.5) asking GET /health every 50 ms, and the server's RSS
 *     (/proc/PID/status) read every 100 ms.
 * Then it stops everything it started and checks: every /health answer under 100 ms, every prune
 * request answered within the server's time limit plus --margin ms (default 500), no errors, the
 * session memory /health reports within its budget, and the server's RSS under its RSS after the
 * warm-up plus the session budget plus --rss-slack-mb (default 1024: request bodies and answers in
 * flight, the workers' own heaps). Exit code 0 when the checks hold, 1 otherwise. Loopback only;
 * stops by itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type AutocannonResult, firstLines, loadInput as loadRunInput } from '../src/server/loadTest.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
const LOGGING_QUERY = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';

export interface BoundedLoadOptions {
  /** Seconds of load. */
  duration: number;
  /** autocannon connections sending the ordinary file. */
  connections: number;
  /** Size of each whitespace bomb in MB (10^6 characters). */
  bombMb: number;
  /** The server's per-request time limit (ms), --timeout of `skim serve`. */
  timeoutMs: number;
  /** Worker threads of the server. */
  workers: number;
  /** Allowed time beyond the time limit for an answer (ms). */
  marginMs: number;
  /** /health must answer within this (ms). */
  healthLimitMs: number;
  /** Lines of the ordinary input. */
  lines: number;
  file?: string;
  query?: string;
  /** The server's session memory budget (MiB, `--session-memory`). */
  sessionMb: number;
  /** Size of each memory-attack body in MB (0: no memory attack). */
  attackMb: number;
  /** Idle connection attempts. */
  idle: number;
  /** Clients sending slow (time-limit long) requests; default: as many as workers. */
  slowClients?: number;
  /** RSS allowed above the RSS after warm-up plus the session budget (MiB). */
  rssSlackMb: number;
  /** `heuristic` for a quick run without the learned model. */
  scorer?: 'heuristic' | 'learned';
  /** The checkout whose `skim serve` to run (default: this one), e.g. an older version to compare. */
  serverRoot?: string;
  /** Run the server from src/ through tsx even when dist/ is built. */
  fromSource?: boolean;
  log?: (line: string) => void;
}

export const DEFAULT_OPTIONS: BoundedLoadOptions = {
  duration: 15,
  connections: 4,
  bombMb: 5,
  timeoutMs: 10_000,
  workers: 2,
  marginMs: 500,
  healthLimitMs: 100,
  lines: 1000,
  sessionMb: 16,
  attackMb: 1,
  idle: 20_000,
  rssSlackMb: 1024,
};

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface BoundedLoadReport {
  input: { path: string; lines: number; chars: number };
  options: Omit<BoundedLoadOptions, 'log'>;
  cpus: number;
  loadBefore: number;
  loadAfter: number;
  /** The ordinary requests (autocannon). */
  ordinary: { requests: number; rps: number; p50: number; p99: number; max: number; errors: number; non2xx: number; timeouts: number };
  /** The whitespace bombs, per kind. */
  bombs: Array<{ kind: string; latency: Latencies; statuses: Record<string, number>; failOpen: number; errors: string[] }>;
  /** The ordinary request in a loop on one more connection: how many failed open. */
  ordinaryLoop: { requests: number; failOpen: number; latency: Latencies };
  /** The memory attack (a new session id and a large body with each request). */
  attack: { requests: number; failOpen: number; latency: Latencies; statuses: Record<string, number>; errors: string[] };
  /** Clients sending requests that take about the time limit. */
  slow: { clients: number; requests: number; failOpen: number; latency: Latencies; errors: string[] };
  health: Latencies & { over: number; failed: number };
  /** Session memory as /health reported it (bytes), its budget, and the server's RSS (MiB). */
  memory: { sessionBytesMax: number; sessionsMax: number; budgetBytes: number; rssWarmMb: number; rssMaxMb: number; rssLimitMb: number };
  /** Idle connection attempts: held open by the server at most at once, and closed by it. */
  idle: { attempts: number; heldMax: number; closedByServer: number };
  checks: Array<{ check: string; ok: boolean; detail: string }>;
  ok: boolean;
}

/** The resident set size of process `pid` in MiB (/proc; 0 where there is none). */
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * `count` connection attempts to the server from 127.0.1.1-127.0.1.80, 200 at a time, in the first
 * half of the run, each held open until the end (half silent, half after part of a request line);
 * counts how many the server held at once and how many it closed.
 */
async function idleConnections(port: string, count: number, endAt: number): Promise<{ attempts: number; heldMax: number; closedByServer: number }> {
  const open = new Set<Socket>();
  let attempts = 0;
  let heldMax = 0;
  let closedByServer = 0;
  const until = performance.now() + (endAt - performance.now()) / 2;
  const one = (i: number) =>
    new Promise<void>((resolveOne) => {
      const s = connect({ host: '127.0.0.1', port: Number(port), localAddress: `127.0.1.${1 + (i % 80)}` });
      let mine = false;
      s.on('connect', () => {
        open.add(s);
        heldMax = Math.max(heldMax, open.size);
        if (i % 2) s.write('POST /v1/prune HTTP/1.1\r\nHost: x\r\n');
        resolveOne();
      });
      s.on('error', () => resolveOne());
      s.on('close', () => {
        if (!mine) closedByServer++;
        open.delete(s);
        resolveOne();
      });
      (s as Socket & { mine?: () => void }).mine = () => {
        mine = true;
      };
    });
  while (attempts < count && performance.now() < until) {
    const batch = Math.min(200, count - attempts);
    await Promise.all(Array.from({ length: batch }, (_, k) => one(attempts + k)));
    attempts += batch;
  }
  while (performance.now() < endAt) await new Promise((r) => setTimeout(r, 100));
  for (const s of open) {
    (s as Socket & { mine?: () => void }).mine?.();
    s.destroy();
  }
  return { attempts, heldMax, closedByServer };
}

function summarize(xs: number[]): Latencies {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : 0);
  return { count: s.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(s[s.length - 1] ?? 0) };
}

const round = (x: number) => Math.round(x * 10) / 10;

function loadInput(opts: BoundedLoadOptions): { code: string; query: string; path: string } {
  try {
    return loadRunInput(opts);
  } catch (err) {
    // the benchmark set is not part of the package: fall back to the shipped example
    if (opts.file) throw err;
    return { code: firstLines(readFileSync(join(ROOT, 'examples', 'logging.py'), 'utf8'), opts.lines), query: LOGGING_QUERY, path: 'src/_pytest/logging.py' };
  }
}

/**
 * `skim serve` as users run it (bin/skim.js, the built dist/), else from the sources through tsx
 * (whose source maps make every error's stack trace, such as a timed-out connection's, cost more);
 * on an ephemeral loopback port; resolves with its URL.
 */
function startServer(opts: BoundedLoadOptions): Promise<{ url: string; child: ChildProcess }> {
  const root = opts.serverRoot ?? ROOT;
  const built = !opts.fromSource && existsSync(join(root, 'dist', 'cli', 'main.js'));
  opts.log?.(`skim serve from ${built ? `${root}/dist (npm run build)` : `${root}/src (tsx)`}`);
  const entry = built ? [join(root, 'bin', 'skim.js')] : ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];
  const args = [...entry, 'serve', '--host', '127.0.0.1', '--port', '0'];
  args.push('--workers', String(opts.workers), '--timeout', String(opts.timeoutMs), '--quiet');
  if (!opts.serverRoot) args.push('--session-memory', String(opts.sessionMb));
  if (opts.scorer) args.push('--scorer', opts.scorer);
  // SERVER_NODE_ARGS reach only the server (e.g. --cpu-prof to see where its main thread goes)
  const nodeArgs = (process.env.SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolvePromise, reject) => {
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`skim serve did not start within 60 s: ${err}`));
    }, 60_000);
    child.stderr!.setEncoding('utf8');
    let started = false;
    child.stderr!.on('data', (chunk: string) => {
      if (started) {
        // the server's own account of a stalled main thread, as it happens
        for (const line of chunk.split('\n')) if (line.includes('event loop held')) opts.log?.(`${new Date().toISOString().slice(11, 23)} ${line}`);
        return;
      }
      err += chunk;
      const m = /listening on (http:\/\/[^\s]+)/.exec(err);
      if (m) {
        started = true;
        clearTimeout(timer);
        resolvePromise({ url: m[1]!, child });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`skim serve exited with code ${code}: ${err}`));
    });
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
  await exited;
  clearTimeout(timer);
}

/** A keep-alive agent whose connections come from `localAddress` (a client of its own to the server). */
const agentFrom = (localAddress: string) => new Agent({ keepAlive: true, maxSockets: 4, localAddress } as ConstructorParameters<typeof Agent>[0]);
const agents = new Map<string, Agent>();
const agentOf = (address: string) => agents.get(address) ?? agents.set(address, agentFrom(address)).get(address)!;

/** One POST over a keep-alive connection from `from`; resolves with status, latency and the parsed body. */
function post(url: string, body: string, limitMs: number, from = '127.0.0.2'): Promise<{ status: number; ms: number; json: unknown }> {
  const t0 = performance.now();
  const agent = agentOf(from);
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - t0;
        let json: unknown = null;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          // reported as a non-JSON answer below
        }
        resolvePromise({ status: res.statusCode ?? 0, ms, json });
      });
      res.on('error', reject);
    });
    req.setTimeout(limitMs, () => req.destroy(new Error(`no answer within ${limitMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The /health probe, on its own thread so the load generator's work does not delay it. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.5' });
const lat = [];
let failed = 0;
let sessionBytesMax = 0;
let sessionsMax = 0;
let stop = false;
parentPort.on('message', () => { stop = true; });
const once = () => new Promise((resolve) => {
  const t0 = performance.now();
  const req = http.get(workerData.url + '/health', { agent }, (res) => {
    let body = '';
    res.on('data', (d) => { body += d; });
    res.on('end', () => {
      const ms = performance.now() - t0;
      if (res.statusCode === 200) lat.push(ms); else failed++;
      if (ms >= workerData.slowMs) parentPort.postMessage({ slow: ms, at: new Date(Date.now() - ms).toISOString().slice(11, 23) });
      try {
        const s = JSON.parse(body).sessions;
        if (s) { sessionBytesMax = Math.max(sessionBytesMax, s.bytes); sessionsMax = Math.max(sessionsMax, s.count); }
      } catch {}
      resolve();
    });
  });
  req.setTimeout(5000, () => req.destroy(new Error('timeout')));
  req.on('error', () => { failed++; resolve(); });
});
(async () => {
  while (!stop) {
    await once();
    await new Promise((r) => setTimeout(r, workerData.everyMs));
  }
  agent.destroy();
  parentPort.postMessage({ lat, failed, sessionBytesMax, sessionsMax });
})();
`;

export async function runBoundedLoad(options: Partial<BoundedLoadOptions> = {}): Promise<BoundedLoadReport> {
  const opts: BoundedLoadOptions = { ...DEFAULT_OPTIONS, ...options };
  const log = opts.log ?? (() => {});
  const input = loadInput(opts);
  const loadBefore = loadavg()[0]!;
  const { url, child } = await startServer(opts);
  log(`skim serve at ${url} (pid ${child.pid}), ${opts.workers} workers, time limit ${opts.timeoutMs} ms`);
  // A hard stop for the whole run: nothing here may keep going if something hangs.
  const hardStop = setTimeout(
    () => {
      child.kill('SIGKILL');
      process.stderr.write('load-bounded: run exceeded its time bound; stopped\n');
      process.exit(2);
    },
    (opts.duration + 120) * 1000,
  );
  hardStop.unref();
  try {
    const ordinary = JSON.stringify({ code: input.code, query: input.query, path: input.path });
    const limit = opts.timeoutMs + opts.marginMs;
    // Warm-up: every worker loads its grammar and model.
    for (let i = 0; i < 3; i++) {
      await Promise.all(
        Array.from({ length: opts.workers * 2 }, async () => {
          const r = await post(`${url}/v1/prune`, ordinary, 120_000);
          if (r.status !== 200) throw new Error(`warm-up got ${r.status}`);
        }),
      );
    }
    const slowClients = opts.slowClients ?? opts.workers;
    const rssWarmMb = rssMb(child.pid!);
    log(
      `warmed up (RSS ${rssWarmMb.toFixed(0)} MiB); load for ${opts.duration} s: ${opts.connections} connections + 1 bomb client + memory attack + ${slowClients} slow clients + ${opts.idle} idle connections + /health every 50 ms`,
    );

    const probe = new Worker(PROBE, { eval: true, workerData: { url, everyMs: 50, slowMs: opts.healthLimitMs } });
    type ProbeMessage = { slow: number; at: string } | { lat: number[]; failed: number; sessionBytesMax: number; sessionsMax: number };
    const probeDone = new Promise<Extract<ProbeMessage, { lat: number[] }>>((r) =>
      probe.on('message', (m: ProbeMessage) => {
        if ('slow' in m) log(`${m.at} /health took ${m.slow.toFixed(0)} ms`);
        else r(m);
      }),
    );
    let rssMaxMb = rssWarmMb;
    const rssTimer = setInterval(() => {
      rssMaxMb = Math.max(rssMaxMb, rssMb(child.pid!));
    }, 100);

    const spaces = ' '.repeat(Math.round(opts.bombMb * 1e6));
    const logging = readFileSync(join(ROOT, 'examples', 'logging.py'), 'utf8');
    const code = logging.repeat(Math.ceil((opts.bombMb * 1e6) / logging.length)).slice(0, Math.round(opts.bombMb * 1e6));
    const bombKinds = [
      { kind: `/v1/prune, ${opts.bombMb} MB of spaces as code`, path: '/v1/prune', body: JSON.stringify({ code: spaces, query: input.query }) },
      { kind: `/prune (SWE-Pruner), ${opts.bombMb} MB of spaces as code`, path: '/prune', body: JSON.stringify({ code: spaces, query: input.query }) },
      { kind: `/prune (SWE-Pruner), ${opts.bombMb} MB of spaces as query`, path: '/prune', body: JSON.stringify({ code: input.code, query: spaces }) },
      // real code: pruning it may take longer than the time limit, which then answers for it
      { kind: `/v1/prune, ${opts.bombMb} MB of Python`, path: '/v1/prune', body: JSON.stringify({ code, query: LOGGING_QUERY }) },
    ];
    const bombStats = bombKinds.map((b) => ({
      kind: b.kind,
      lat: [] as number[],
      statuses: {} as Record<string, number>,
      failOpen: 0,
      errors: [] as string[],
    }));
    const endAt = performance.now() + opts.duration * 1000;
    const bomber = (async () => {
      for (let i = 0; performance.now() < endAt; i++) {
        const k = i % bombKinds.length;
        const st = bombStats[k]!;
        try {
          const r = await post(`${url}${bombKinds[k]!.path}`, bombKinds[k]!.body, limit * 2);
          st.lat.push(r.ms);
          st.statuses[r.status] = (st.statuses[r.status] ?? 0) + 1;
          const j = r.json as { error?: string; error_msg?: string | null } | null;
          if (j && (j.error || j.error_msg)) st.failOpen++;
        } catch (err) {
          st.errors.push((err as Error).message);
        }
      }
    })();

    // The same ordinary request in a loop on one more connection of the ordinary client: fail-open counted.
    const ordinaryLoop = (async () => {
      const lat: number[] = [];
      let failOpen = 0;
      while (performance.now() < endAt) {
        try {
          const r = await post(`${url}/v1/prune`, ordinary, limit * 2, '127.0.0.1');
          lat.push(r.ms);
          if ((r.json as { error?: string } | null)?.error) failOpen++;
        } catch {
          lat.push(limit * 2);
        }
      }
      return { requests: lat.length, failOpen, latency: summarize(lat) };
    })();
    // The memory attack: a new session id with each request, a large body, no query (remembered whole).
    const attackStats = { requests: 0, failOpen: 0, statuses: {} as Record<string, number>, errors: [] as string[], lat: [] as number[] };
    const attackCode = opts.attackMb > 0 ? code.slice(0, Math.round(opts.attackMb * 1e6)) : '';
    const attacker = (async () => {
      for (let i = 0; opts.attackMb > 0 && performance.now() < endAt; i++) {
        try {
          const r = await post(
            `${url}/v1/prune`,
            JSON.stringify({ code: attackCode, path: `attack/f${i}.py`, session: `attack-${i}` }),
            limit * 2,
            '127.0.0.3',
          );
          attackStats.requests++;
          attackStats.lat.push(r.ms);
          attackStats.statuses[r.status] = (attackStats.statuses[r.status] ?? 0) + 1;
          if ((r.json as { error?: string } | null)?.error) attackStats.failOpen++;
        } catch (err) {
          attackStats.errors.push((err as Error).message);
        }
      }
    })();
    // Slow clients: each sends the Python bomb (about the time limit of work) one after another.
    const slowStats = { requests: 0, failOpen: 0, errors: [] as string[], lat: [] as number[] };
    const pythonBomb = JSON.stringify({ code, query: LOGGING_QUERY });
    const slow = Array.from({ length: slowClients }, async (_, c) => {
      while (performance.now() < endAt) {
        try {
          const r = await post(`${url}/v1/prune`, pythonBomb, limit * 2, `127.0.0.${10 + c}`);
          slowStats.requests++;
          slowStats.lat.push(r.ms);
          if ((r.json as { error?: string } | null)?.error) slowStats.failOpen++;
        } catch (err) {
          slowStats.errors.push((err as Error).message);
        }
      }
    });
    const idle = idleConnections(new URL(url).port, opts.idle, endAt);

    const autocannon = (await import('autocannon' as string)).default as (o: object) => Promise<AutocannonResult>;
    const ac = await autocannon({
      url: `${url}/v1/prune`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ordinary,
      connections: opts.connections,
      duration: opts.duration,
      timeout: Math.ceil((limit * 2) / 1000),
    });
    await bomber;
    const [loopStats, idleStats] = await Promise.all([ordinaryLoop, idle, attacker, ...slow]);
    clearInterval(rssTimer);
    probe.postMessage('stop');
    const health = await probeDone;
    await probe.terminate();
    const budgetBytes = opts.sessionMb * 2 ** 20;
    const rssLimitMb = rssWarmMb + opts.sessionMb + opts.rssSlackMb;
    const loadAfter = loadavg()[0]!;

    const h = summarize(health.lat);
    const bombs = bombStats.map((b) => ({ kind: b.kind, latency: summarize(b.lat), statuses: b.statuses, failOpen: b.failOpen, errors: b.errors }));
    const memory = {
      sessionBytesMax: health.sessionBytesMax,
      sessionsMax: health.sessionsMax,
      budgetBytes,
      rssWarmMb: round(rssWarmMb),
      rssMaxMb: round(rssMaxMb),
      rssLimitMb: round(rssLimitMb),
    };
    const attack = {
      requests: attackStats.requests,
      failOpen: attackStats.failOpen,
      latency: summarize(attackStats.lat),
      statuses: attackStats.statuses,
      errors: attackStats.errors,
    };
    const slowReport = {
      clients: slowClients,
      requests: slowStats.requests,
      failOpen: slowStats.failOpen,
      latency: summarize(slowStats.lat),
      errors: slowStats.errors,
    };
    const checks = [
      {
        check: `session memory within its budget (${opts.sessionMb} MiB)`,
        ok: opts.attackMb === 0 || (attack.requests > 0 && memory.sessionBytesMax <= budgetBytes && attack.errors.length === 0),
        detail: `${attack.requests} attack requests (new session id each, ${opts.attackMb} MB, statuses ${JSON.stringify(attack.statuses)}); at most ${(memory.sessionBytesMax / 2 ** 20).toFixed(1)} MiB in ${memory.sessionsMax} sessions`,
      },
      {
        check: `server RSS under ${memory.rssLimitMb} MiB (after warm-up + session budget + ${opts.rssSlackMb} MiB)`,
        ok: memory.rssMaxMb > 0 && memory.rssMaxMb <= rssLimitMb,
        detail: `RSS ${memory.rssWarmMb} MiB after warm-up, at most ${memory.rssMaxMb} MiB`,
      },
      {
        check: `slow clients within ${opts.timeoutMs} + ${opts.marginMs} ms`,
        ok: slowReport.errors.length === 0 && slowReport.latency.max <= limit,
        detail: `${slowClients} clients, ${slowReport.requests} requests, max ${slowReport.latency.max} ms, ${slowReport.failOpen} failed open`,
      },
      {
        check: `/health under ${opts.healthLimitMs} ms`,
        ok: h.count > 0 && h.max < opts.healthLimitMs && health.failed === 0,
        detail: `${h.count} probes, max ${h.max} ms, p99 ${h.p99} ms, ${health.failed} failed`,
      },
      {
        check: `ordinary requests within ${opts.timeoutMs} + ${opts.marginMs} ms`,
        ok: ac.latency.max <= limit && ac.errors === 0 && ac.timeouts === 0 && ac.non2xx === 0,
        detail: `${ac.requests.total} requests, max ${ac.latency.max} ms, ${ac.errors} errors, ${ac.timeouts} timeouts, ${ac.non2xx} non-2xx`,
      },
      {
        check: `bombs within ${opts.timeoutMs} + ${opts.marginMs} ms`,
        ok:
          bombs.some((b) => b.latency.count > 0) &&
          bombs.every((b) => b.latency.max <= limit && b.errors.length === 0 && Object.keys(b.statuses).every((s) => s === '200')),
        detail: bombs
          .filter((b) => b.latency.count > 0 || b.errors.length > 0)
          .map(
            (b) =>
              `${b.kind}: ${b.latency.count} requests, max ${b.latency.max} ms, statuses ${JSON.stringify(b.statuses)}, ${b.failOpen} failed open${b.errors.length ? `, errors: ${b.errors[0]}` : ''}`,
          )
          .join('; '),
      },
    ];
    const { log: _log, ...shownOptions } = opts;
    return {
      input: { path: input.path, lines: input.code.split('\n').length - 1, chars: input.code.length },
      options: shownOptions,
      cpus: availableParallelism(),
      loadBefore,
      loadAfter,
      ordinary: {
        requests: ac.requests.total,
        rps: round(ac.requests.average),
        p50: ac.latency.p50,
        p99: ac.latency.p99,
        max: ac.latency.max,
        errors: ac.errors,
        non2xx: ac.non2xx,
        timeouts: ac.timeouts,
      },
      bombs,
      ordinaryLoop: loopStats,
      attack,
      slow: slowReport,
      memory,
      idle: idleStats,
      health: { ...h, over: health.lat.filter((x) => x >= opts.healthLimitMs).length, failed: health.failed },
      checks,
      ok: checks.every((c) => c.ok),
    };
  } finally {
    for (const a of agents.values()) a.destroy();
    await stopServer(child);
    clearTimeout(hardStop);
  }
}

export function formatReport(r: BoundedLoadReport): string {
  const o = r.ordinary;
  return [
    `input: ${r.input.path}, ${r.input.lines} lines; ${r.cpus} CPUs; 1-minute load average ${r.loadBefore.toFixed(2)} before, ${r.loadAfter.toFixed(2)} after`,
    `server: ${r.options.workers} worker threads, time limit ${r.options.timeoutMs} ms; ${r.options.duration} s of load`,
    '',
    '| traffic | requests | p50 ms | p99 ms | max ms | outcome |',
    '|---|---:|---:|---:|---:|---|',
    `| /v1/prune, ${r.input.lines}-line file + goal hint, ${r.options.connections} connections (autocannon) | ${o.requests} (${o.rps}/s) | ${o.p50} | ${o.p99} | ${o.max} | ${o.errors} errors, ${o.timeouts} timeouts, ${o.non2xx} non-2xx |`,
    ...r.bombs.map(
      (b) =>
        `| ${b.kind} (1 client) | ${b.latency.count} | ${b.latency.p50} | ${b.latency.p99} | ${b.latency.max} | statuses ${Object.entries(b.statuses)
          .map(([s, n]) => `${s} x${n}`)
          .join(', ')}; ${b.failOpen} failed open${b.errors.length ? `; ${b.errors.length} errors` : ''} |`,
    ),
    `| /v1/prune, the same request in a loop on 1 more connection | ${r.ordinaryLoop.requests} | ${r.ordinaryLoop.latency.p50} | ${r.ordinaryLoop.latency.p99} | ${r.ordinaryLoop.latency.max} | ${r.ordinaryLoop.failOpen} failed open |`,
    `| memory attack: a new session id, ${r.options.attackMb} MB of code, no query (1 client) | ${r.attack.requests} | ${r.attack.latency.p50} | ${r.attack.latency.p99} | ${r.attack.latency.max} | statuses ${Object.entries(
      r.attack.statuses,
    )
      .map(([s, n]) => `${s} x${n}`)
      .join(
        ', ',
      )}, ${r.attack.failOpen} failed open; session memory at most ${(r.memory.sessionBytesMax / 2 ** 20).toFixed(1)} MiB of ${r.options.sessionMb} in ${r.memory.sessionsMax} sessions |`,
    `| slow clients: ${r.options.bombMb} MB of Python each (${r.slow.clients} clients) | ${r.slow.requests} | ${r.slow.latency.p50} | ${r.slow.latency.p99} | ${r.slow.latency.max} | ${r.slow.failOpen} failed open${r.slow.errors.length ? `; ${r.slow.errors.length} errors` : ''} |`,
    `| idle connections (80 addresses) | ${r.idle.attempts} attempts | | | | at most ${r.idle.heldMax} held open, ${r.idle.closedByServer} closed by the server |`,
    `| GET /health every 50 ms (own thread) | ${r.health.count} | ${r.health.p50} | ${r.health.p99} | ${r.health.max} | ${r.health.over} at or over ${r.options.healthLimitMs} ms, ${r.health.failed} failed |`,
    '',
    `server RSS: ${r.memory.rssWarmMb} MiB after warm-up, at most ${r.memory.rssMaxMb} MiB under load (limit ${r.memory.rssLimitMb} MiB)`,
    ...r.checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}`),
  ].join('\n');
}

function parseArgs(argv: string[]): Partial<BoundedLoadOptions> & { json?: string } {
  const out: Partial<BoundedLoadOptions> & { json?: string } = {};
  const num = (v: string | undefined, k: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${k} needs a positive number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i]!, argv[i + 1]];
    if (k === '--from-source') {
      out.fromSource = true;
      continue;
    }
    if (k === '--duration') out.duration = Math.min(120, num(v, k));
    else if (k === '--connections') out.connections = num(v, k);
    else if (k === '--bomb-mb') out.bombMb = Math.min(7.5, num(v, k));
    else if (k === '--timeout') out.timeoutMs = num(v, k);
    else if (k === '--workers') out.workers = num(v, k);
    else if (k === '--margin') out.marginMs = num(v, k);
    else if (k === '--lines') out.lines = num(v, k);
    else if (k === '--session-mb') out.sessionMb = num(v, k);
    else if (k === '--attack-mb') out.attackMb = Math.min(7.5, Number(v) || 0);
    else if (k === '--idle') out.idle = Math.min(20_000, Number(v) || 0);
    else if (k === '--slow-clients') out.slowClients = Math.min(16, Number(v) || 0);
    else if (k === '--rss-slack-mb') out.rssSlackMb = num(v, k);
    else if (k === '--file') out.file = v;
    else if (k === '--query') out.query = v;
    else if (k === '--scorer') out.scorer = v === 'heuristic' ? 'heuristic' : 'learned';
    else if (k === '--json') out.json = v;
    else if (k === '--server-root') out.serverRoot = resolve(v ?? '.');
    else throw new Error(`unknown option ${k}`);
    i++;
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { json, ...args } = parseArgs(process.argv.slice(2));
  runBoundedLoad({ ...args, log: (l) => process.stderr.write(`${l}\n`) })
    .then((r) => {
      process.stdout.write(`${formatReport(r)}\n`);
      if (json) writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
      process.exit(r.ok ? 0 : 1);
    })
    .catch((err) => {
      process.stderr.write(`load-bounded: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
