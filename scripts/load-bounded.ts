/**
 * A bounded load run against `skim serve` (issue #20: no single request may stall the server):
 *
 *   npx tsx scripts/load-bounded.ts [--duration 15] [--connections 4] [--bomb-mb 5] [--timeout 10000]
 *                                   [--workers 2] [--file F --query Q] [--json OUT] [--server-root DIR]
 *
 * Starts `skim serve` as a child process on 127.0.0.1 (an ephemeral port), warms it up, then for
 * --duration seconds at once:
 *   - autocannon: --connections connections POSTing a 1,000-line file with its goal hint to /v1/prune;
 *   - one client sending bombs, one after another: --bomb-mb MB of spaces as `code` to /v1/prune
 *     and to /prune (SWE-Pruner wire) and as the `query` of /prune, then as many MB of Python
 *     (pruning it may take longer than the time limit: it then fails open at the limit);
 *   - a probe (its own thread) asking GET /health every 50 ms.
 * Then it stops everything it started and checks: every /health answer under 100 ms, every prune
 * request answered within the server's time limit plus --margin ms (default 500), no errors.
 * Exit code 0 when the checks hold, 1 otherwise. Loopback only; stops by itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
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
  /** `heuristic` for a quick run without the learned model. */
  scorer?: 'heuristic' | 'learned';
  /** The checkout whose `skim serve` to run (default: this one), e.g. an older version to compare. */
  serverRoot?: string;
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
  health: Latencies & { over: number; failed: number };
  checks: Array<{ check: string; ok: boolean; detail: string }>;
  ok: boolean;
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

/** `skim serve` from the sources, on an ephemeral loopback port; resolves with its URL. */
function startServer(opts: BoundedLoadOptions): Promise<{ url: string; child: ChildProcess }> {
  const root = opts.serverRoot ?? ROOT;
  const args = ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), 'serve', '--host', '127.0.0.1', '--port', '0'];
  args.push('--workers', String(opts.workers), '--timeout', String(opts.timeoutMs), '--quiet');
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
    child.stderr!.on('data', (chunk: string) => {
      err += chunk;
      const m = /listening on (http:\/\/[^\s]+)/.exec(err);
      if (m) {
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

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** One POST over a keep-alive connection; resolves with status, latency and the parsed body. */
function post(url: string, body: string, limitMs: number): Promise<{ status: number; ms: number; json: unknown }> {
  const t0 = performance.now();
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
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const lat = [];
let failed = 0;
let stop = false;
parentPort.on('message', () => { stop = true; });
const once = () => new Promise((resolve) => {
  const t0 = performance.now();
  const req = http.get(workerData.url + '/health', { agent }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode === 200) lat.push(performance.now() - t0); else failed++; resolve(); });
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
  parentPort.postMessage({ lat, failed });
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
    log(`warmed up; load for ${opts.duration} s: ${opts.connections} connections + 1 bomb client + /health every 50 ms`);

    const probe = new Worker(PROBE, { eval: true, workerData: { url, everyMs: 50 } });
    const probeDone = new Promise<{ lat: number[]; failed: number }>((r) => probe.once('message', r));

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
    probe.postMessage('stop');
    const health = await probeDone;
    await probe.terminate();
    const loadAfter = loadavg()[0]!;

    const h = summarize(health.lat);
    const bombs = bombStats.map((b) => ({ kind: b.kind, latency: summarize(b.lat), statuses: b.statuses, failOpen: b.failOpen, errors: b.errors }));
    const checks = [
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
      health: { ...h, over: health.lat.filter((x) => x >= opts.healthLimitMs).length, failed: health.failed },
      checks,
      ok: checks.every((c) => c.ok),
    };
  } finally {
    agent.destroy();
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
    `| GET /health every 50 ms (own thread) | ${r.health.count} | ${r.health.p50} | ${r.health.p99} | ${r.health.max} | ${r.health.over} at or over ${r.options.healthLimitMs} ms, ${r.health.failed} failed |`,
    '',
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
    if (k === '--duration') out.duration = Math.min(120, num(v, k));
    else if (k === '--connections') out.connections = num(v, k);
    else if (k === '--bomb-mb') out.bombMb = Math.min(7.5, num(v, k));
    else if (k === '--timeout') out.timeoutMs = num(v, k);
    else if (k === '--workers') out.workers = num(v, k);
    else if (k === '--margin') out.marginMs = num(v, k);
    else if (k === '--lines') out.lines = num(v, k);
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
