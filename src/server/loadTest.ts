/**
 * Load test of the HTTP server on loopback with autocannon (a dev dependency), bounded in time:
 *
 *   npx tsx src/server/loadTest.ts [--duration 10] [--connections 4] [--file F --query Q] [--only TEXT] [--out results.json]
 *
 * The default input is a real 1,000-line file (the first 1,000 lines of a gold file of the
 * goal-hint benchmark, with its goal hint). Each configuration starts its own server on
 * 127.0.0.1 with an ephemeral port, measures requests/s and latency percentiles, and stops it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createPruner } from '../index.js';
import { createApp } from './app.js';
import { listen } from './listen.js';
import { inlineRunner, type PruneRunner } from './runner.js';
import { PACKAGE_ROOT } from './static.js';
import { createWorkerPool } from './workerPool.js';

const GOALHINT = join(PACKAGE_ROOT, '..', 'shared', 'bench', 'goalhint-dev.jsonl.gz');
const DEFAULT_CASE = 'sphinx/domains/python/__init__.py';

interface Args {
  duration: number;
  connections: number;
  lines: number;
  file?: string;
  query?: string;
  out?: string;
  /** Run only the configurations whose name contains this text. */
  only?: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { duration: 10, connections: 4, lines: 1000 };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--duration') args.duration = Math.min(60, Number(v));
    else if (k === '--connections') args.connections = Number(v);
    else if (k === '--lines') args.lines = Number(v);
    else if (k === '--file') args.file = v;
    else if (k === '--query') args.query = v;
    else if (k === '--out') args.out = v;
    else if (k === '--only') args.only = v;
    else continue;
    i++;
  }
  return args;
}

/** The body a load run sends: the first `lines` lines of --file with --query, else of the goal-hint case DEFAULT_CASE. */
export function loadInput(args: { file?: string; query?: string; lines: number }): { code: string; query: string; path: string } {
  if (args.file) {
    if (!args.query) throw new Error('--file needs --query');
    return { code: firstLines(readFileSync(args.file, 'utf8'), args.lines), query: args.query, path: args.file };
  }
  for (const line of gunzipSync(readFileSync(GOALHINT)).toString('utf8').split('\n')) {
    if (!line) continue;
    const c = JSON.parse(line) as { query: string; files: Array<{ path: string; role: string; content: string }> };
    const f = c.files.find((x) => x.role === 'gold' && x.path === DEFAULT_CASE);
    if (f) return { code: firstLines(f.content, args.lines), query: c.query, path: f.path };
  }
  throw new Error(`${DEFAULT_CASE} not found in ${GOALHINT}`);
}

export function firstLines(text: string, n: number): string {
  return `${text.split('\n').slice(0, n).join('\n')}\n`;
}

interface Config {
  name: string;
  endpoint: '/prune' | '/v1/prune';
  workers: number;
  /** Overrides --connections (1 = latency of a lone request). */
  connections?: number;
  body: (inp: { code: string; query: string; path: string }) => unknown;
}

const CONFIGS: Config[] = [
  { name: 'POST /v1/prune adaptive, 2 worker threads', endpoint: '/v1/prune', workers: 2, body: (i) => ({ code: i.code, query: i.query, path: i.path }) },
  {
    name: 'POST /v1/prune ratio 4, 2 worker threads',
    endpoint: '/v1/prune',
    workers: 2,
    body: (i) => ({ code: i.code, query: i.query, path: i.path, ratio: 4 }),
  },
  { name: 'POST /prune (SWE-Pruner wire), 2 worker threads', endpoint: '/prune', workers: 2, body: (i) => ({ code: i.code, query: i.query }) },
  { name: 'POST /v1/prune adaptive, 1 worker thread', endpoint: '/v1/prune', workers: 1, body: (i) => ({ code: i.code, query: i.query, path: i.path }) },
  { name: 'POST /v1/prune adaptive, inline (main thread)', endpoint: '/v1/prune', workers: 0, body: (i) => ({ code: i.code, query: i.query, path: i.path }) },
  {
    name: 'POST /v1/prune adaptive, 2 worker threads, 1 connection',
    endpoint: '/v1/prune',
    workers: 2,
    connections: 1,
    body: (i) => ({ code: i.code, query: i.query, path: i.path }),
  },
];

export interface LoadFigure {
  config: string;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  non2xx: number;
  failOpen: number;
}

async function runOne(cfg: Config, input: { code: string; query: string; path: string }, args: Args): Promise<LoadFigure> {
  // autocannon has no type declarations; it is a dev dependency used only here.
  const autocannon = (await import('autocannon' as string)).default as (opts: object) => Promise<AutocannonResult>;
  const runner: PruneRunner = cfg.workers > 0 ? createWorkerPool({ size: cfg.workers }) : inlineRunner(createPruner());
  let failOpen = 0;
  const app = createApp({
    runner,
    maxConcurrent: Math.max(1, cfg.workers),
    maxQueue: 256,
    log: (l) => {
      if (l.startsWith('skim serve: fail-open')) failOpen++;
    },
  });
  const server = await listen(app, '127.0.0.1', 0);
  const body = JSON.stringify(cfg.body(input));
  try {
    // Warm up every worker (grammar and model load, JIT) with the same concurrency as the run.
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: cfg.connections ?? args.connections }, async () => {
          const res = await fetch(`${server.url}${cfg.endpoint}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          if (res.status !== 200) throw new Error(`warm-up got ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        }),
      );
    }
    failOpen = 0;
    const r = await autocannon({
      url: `${server.url}${cfg.endpoint}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      connections: cfg.connections ?? args.connections,
      duration: args.duration,
    });
    return {
      config: cfg.name,
      requests: r.requests.total,
      rps: r.requests.average,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      errors: r.errors + r.timeouts,
      non2xx: r.non2xx,
      failOpen,
    };
  } finally {
    await server.close(1000);
    await runner.close();
  }
}

/** What autocannon reports (the fields the load runs read; it ships no type declarations). */
export interface AutocannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const input = loadInput(args);
  const pruner = createPruner();
  const single = await pruner.prune({ code: input.code, query: input.query, path: input.path });
  const scorer = (await pruner.scorer()).name;
  const lines = input.code.split('\n').length - 1;
  process.stderr.write(
    `input: ${input.path}, ${lines} lines, ${single.tokensIn} tokens -> ${single.tokensOut} (adaptive); scorer ${scorer}; ` +
      `${availableParallelism()} CPUs; ${args.connections} connections, ${args.duration} s per configuration\n`,
  );
  // The machine may be shared: record how busy it was, the figures depend on it.
  const loadBefore = loadavg()[0];
  const figures: LoadFigure[] = [];
  for (const cfg of CONFIGS.filter((c) => args.only === undefined || c.name.includes(args.only))) {
    process.stderr.write(`running: ${cfg.name}\n`);
    figures.push(await runOne(cfg, input, args));
  }
  const rows = figures.map(
    (f) => `| ${f.config} | ${f.rps.toFixed(1)} | ${f.p50} | ${f.p90} | ${f.p99} | ${f.requests} | ${f.errors + f.non2xx} | ${f.failOpen} |`,
  );
  process.stdout.write(
    ['| configuration | requests/s | p50 ms | p90 ms | p99 ms | requests | errors | fail-open |', '|---|---:|---:|---:|---:|---:|---:|---:|', ...rows, ''].join(
      '\n',
    ),
  );
  const loadAfter = loadavg()[0];
  process.stdout.write(`\n1-minute load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after\n`);
  if (args.out)
    writeFileSync(
      args.out,
      JSON.stringify({ input: { path: input.path, lines, tokens: single.tokensIn }, scorer, args, loadBefore, loadAfter, figures }, null, 2),
    );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    process.stderr.write(`loadTest: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
