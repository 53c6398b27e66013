/**
 * Load run of `skim serve` replicas sharing their sessions in one Redis, against one replica with
 * in-memory sessions, on this machine (loopback, bounded in time):
 *
 *   npx tsx scripts/load-replicas.ts [--duration 20] [--rounds 1] [--connections 8] [--sessions 32] [--workers 2]
 *                                    [--replicas 2] [--file F --query Q] [--lines 1000] [--out results.json]
 *
 * Needs the built CLI (npm run build) and redis-server on the PATH. Starts a redis-server on a free
 * port (nothing persisted) and the `skim serve` processes of both configurations (ephemeral ports, -q):
 *   - "1 replica, in-memory sessions": one server with --workers N;
 *   - "R replicas, Redis sessions": R servers with --workers N/R each (the same worker threads in all)
 *     and --session-store pointing at the redis-server.
 * Each request is a read of the same 1,000-line file (loadTest.ts's input) in one of --sessions
 * sessions, with a question that differs per request (so each is pruned, and folds what its
 * session was shown). With replicas, the connections are spread evenly over them, as a round-robin
 * load balancer would (one autocannon per replica, run together): requests/s is their sum, p99 the
 * largest of theirs. With --rounds N the two configurations take turns, N times --duration each
 * (a shared machine's load then weighs on both alike): requests/s over all rounds, p50 and p99 the
 * largest of a round's. Errors count failed connections, non-2xx answers, answers that failed open,
 * and answers carrying a session-store-unavailable warning.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AutocannonResult, loadInput } from '../src/server/loadTest.js';
// (the same throwaway redis-server the tests start: one free-port helper)
import { freePort } from '../test/helpers/redis.js';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'skim.js');

interface Args {
  duration: number;
  rounds: number;
  connections: number;
  sessions: number;
  workers: number;
  replicas: number;
  lines: number;
  file?: string;
  query?: string;
  out?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { duration: 20, rounds: 1, connections: 8, sessions: 32, workers: 2, replicas: 2, lines: 1000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--duration') args.duration = Math.min(120, Number(v));
    else if (k === '--rounds') args.rounds = Number(v);
    else if (k === '--connections') args.connections = Number(v);
    else if (k === '--sessions') args.sessions = Number(v);
    else if (k === '--workers') args.workers = Number(v);
    else if (k === '--replicas') args.replicas = Number(v);
    else if (k === '--lines') args.lines = Number(v);
    else if (k === '--file') args.file = v;
    else if (k === '--query') args.query = v;
    else if (k === '--out') args.out = v;
    else throw new Error(`unknown option ${k}`);
  }
  return args;
}

/** Start a process and resolve once `ready` matches what it wrote to stderr (or stdout). */
function startProcess(cmd: string, argv: string[], ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d;
      const m = ready.exec(out);
      if (m) resolve({ child, match: m });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`${cmd} exited with ${code}: ${out}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface Figure {
  config: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  storeWarnings: number;
  failOpen: number;
}

async function runConfig(name: string, urls: string[], input: { code: string; query: string; path: string }, args: Args, warm: boolean): Promise<Figure> {
  const autocannon = (await import('autocannon' as string)).default as (opts: object) => Promise<AutocannonResult>;
  let n = 0;
  let storeWarnings = 0;
  let failOpen = 0;
  const body = () => {
    const i = n++;
    return JSON.stringify({ code: input.code, path: input.path, query: `${input.query} (${i})`, session: `load-${i % args.sessions}` });
  };
  const onResponse = (_status: number, text: string) => {
    if (text.includes('session-store-unavailable')) storeWarnings++;
    if (text.includes('"not-pruned"')) failOpen++;
  };
  // warm up (the first round): every session read once on each replica
  if (warm)
    for (let s = 0; s < args.sessions; s++)
      for (const url of urls) {
        const res = await fetch(`${url}/v1/prune`, { method: 'POST', body: body() });
        if (res.status !== 200) throw new Error(`warm-up got ${res.status}`);
        await res.arrayBuffer();
      }
  storeWarnings = failOpen = 0;
  const per = Math.max(1, Math.round(args.connections / urls.length));
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}/v1/prune`,
        connections: per,
        duration: args.duration,
        requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (r: object) => ({ ...r, body: body() }), onResponse }],
      }),
    ),
  );
  return {
    config: name,
    requests: results.reduce((s, r) => s + r.requests.total, 0),
    rps: results.reduce((s, r) => s + r.requests.average, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((s, r) => s + r.errors + r.timeouts + r.non2xx, 0),
    storeWarnings,
    failOpen,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const input = loadInput(args);
  const redisPort = await freePort();
  const redis = await startProcess('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], /Ready to accept/);
  const children: ChildProcess[] = [redis.child];
  const serve = async (extra: string[], workers: number) => {
    const { child, match } = await startProcess(
      process.execPath,
      [BIN, 'serve', '--port', '0', '--workers', String(workers), '-q', ...extra],
      /listening on (http:\/\/[\d.]+:\d+)/,
    );
    children.push(child);
    return { child, url: match[1] };
  };
  const loadBefore = loadavg()[0];
  process.stderr.write(
    `input: ${input.path}, ${args.lines} lines; ${availableParallelism()} CPUs; ${args.connections} connections, ${args.sessions} sessions, ${args.duration} s per configuration\n`,
  );
  const figures: Figure[] = [];
  try {
    const one = await serve([], args.workers);
    const per = Math.max(1, Math.floor(args.workers / args.replicas));
    const replicas = await Promise.all(Array.from({ length: args.replicas }, () => serve(['--session-store', `redis://127.0.0.1:${redisPort}`], per)));
    const configs = [
      { name: `1 replica x ${args.workers} workers, in-memory sessions`, urls: [one.url] },
      { name: `${args.replicas} replicas x ${per} worker${per > 1 ? 's' : ''}, one Redis`, urls: replicas.map((r) => r.url) },
    ];
    for (let round = 0; round < args.rounds; round++)
      for (const [k, c] of configs.entries()) {
        process.stderr.write(`round ${round + 1}: ${c.name}\n`);
        const f = await runConfig(c.name, c.urls, input, args, round === 0);
        const sum = figures[k];
        if (!sum) figures.push(f);
        else
          figures[k] = {
            ...sum,
            requests: sum.requests + f.requests,
            rps: sum.rps + f.rps,
            p50: Math.max(sum.p50, f.p50),
            p99: Math.max(sum.p99, f.p99),
            errors: sum.errors + f.errors,
            storeWarnings: sum.storeWarnings + f.storeWarnings,
            failOpen: sum.failOpen + f.failOpen,
          };
      }
    for (const f of figures) f.rps /= args.rounds;
  } finally {
    await Promise.all(children.map(stop));
  }
  const loadAfter = loadavg()[0];
  const rows = figures.map(
    (f) => `| ${f.config} | ${f.rps.toFixed(1)} | ${f.p50} | ${f.p99} | ${f.requests} | ${f.errors} | ${f.failOpen} | ${f.storeWarnings} |`,
  );
  process.stdout.write(
    [
      '| configuration | requests/s | p50 ms | p99 ms | requests | errors | fail-open | store warnings |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `1-minute load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
      '',
    ].join('\n'),
  );
  if (args.out) writeFileSync(args.out, JSON.stringify({ args, loadBefore, loadAfter, figures }, null, 2));
  if (figures.some((f) => f.errors + f.failOpen + f.storeWarnings > 0)) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`load-replicas: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
