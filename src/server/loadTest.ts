/**
 * Load test of the HTTP server on loopback with autocannon (a dev dependency), bounded in time:
 *
 *   npx tsx src/server/loadTest.ts [--duration 10] [--connections 4] [--bodies repeated|distinct|both]
 *                                  [--file F --query Q] [--only TEXT] [--out results.json]
 *
 * Repeated bodies: every request sends one real 1,000-line file (the first 1,000 lines of a gold
 * file of the goal-hint benchmark, with its goal hint), so after the first the server reuses its
 * analysis of that text. Distinct bodies: each request sends the next of a few hundred different
 * real files (the first 1,000 lines of every benchmark file that long, each with its own case's
 * question), far more than the analysis cache holds, so every request is analysed as new. Each
 * configuration starts its own server on 127.0.0.1 with an ephemeral port, measures requests/s and
 * latency percentiles, and stops it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { configureCoreFromEnv } from '../env.js';
import { createPruner } from '../index.js';
import { createLogger } from '../log.js';
import { createApp } from './app.js';
import { listen } from './listen.js';
import { inlineRunner, type PruneRunner } from './runner.js';
import { PACKAGE_ROOT } from './static.js';
import { createWorkerPool } from './workerPool.js';

const BENCH = join(PACKAGE_ROOT, '..', 'shared', 'bench');
const GOALHINT = join(BENCH, 'goalhint-dev.jsonl.gz');
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
  /** Which bodies each configuration is run with (default: both, reported apart). */
  bodies: BodyKind[];
}

/** `repeated`: one body on every request; `distinct`: a different real file on each request. */
export type BodyKind = 'repeated' | 'distinct';

function parseArgs(argv: string[]): Args {
  const args: Args = { duration: 10, connections: 4, lines: 1000, bodies: ['repeated', 'distinct'] };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--duration') args.duration = Math.min(60, Number(v));
    else if (k === '--connections') args.connections = Number(v);
    else if (k === '--lines') args.lines = Number(v);
    else if (k === '--file') args.file = v;
    else if (k === '--query') args.query = v;
    else if (k === '--out') args.out = v;
    else if (k === '--only') args.only = v;
    else if (k === '--bodies') {
      if (v !== 'repeated' && v !== 'distinct' && v !== 'both') throw new Error('--bodies takes repeated, distinct or both');
      args.bodies = v === 'both' ? ['repeated', 'distinct'] : [v];
    } else continue;
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

/** An input a load run sends: a file's text, the question asked about it, and its path. */
export interface LoadInput {
  code: string;
  query: string;
  path: string;
}

/**
 * Different real files of `lines` lines for distinct-body runs: the first `lines` lines of every
 * file of the goal-hint, SWE-bench and polyglot benchmarks that has that many, each with its own
 * case's question, without duplicate texts, in a fixed order.
 */
export function distinctInputs(lines: number): LoadInput[] {
  const seen = new Set<string>();
  const out: LoadInput[] = [];
  const add = (content: string, query: string, path: string) => {
    if (countNewlines(content) < lines) return;
    const code = firstLines(content, lines);
    if (seen.has(code)) return;
    seen.add(code);
    out.push({ code, query, path });
  };
  for (const name of ['goalhint-dev.jsonl.gz', 'swebench-dev.jsonl.gz']) {
    for (const line of gunzipSync(readFileSync(join(BENCH, name)))
      .toString('utf8')
      .split('\n')) {
      if (!line) continue;
      const c = JSON.parse(line) as { query: string; files: Array<{ path: string; content: string }> };
      for (const f of c.files) add(f.content, c.query, f.path);
    }
  }
  for (const line of gunzipSync(readFileSync(join(BENCH, 'polyglot-dev.jsonl.gz')))
    .toString('utf8')
    .split('\n')) {
    if (!line) continue;
    const c = JSON.parse(line) as { query: string; path: string; code: string };
    add(c.code, c.query, c.path);
  }
  return out;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
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
  bodies: BodyKind;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  non2xx: number;
  failOpen: number;
}

/**
 * One configuration under load. `inputs` holds one input (repeated bodies) or many (distinct
 * bodies: request k sends input k modulo their number; the warm-up sends the last ones, so the
 * run starts on texts no worker has analysed).
 */
async function runOne(cfg: Config, inputs: LoadInput[], bodies: BodyKind, args: Args): Promise<LoadFigure> {
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
  // (made before the run: the load generator shares this process)
  const payloads = inputs.map((i) => JSON.stringify(cfg.body(i)));
  const connections = cfg.connections ?? args.connections;
  try {
    // Warm up every worker (grammar and model load, JIT) with the same concurrency as the run.
    let warm = 0;
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: connections }, async () => {
          const body = payloads[payloads.length - 1 - (warm++ % payloads.length)];
          const res = await fetch(`${server.url}${cfg.endpoint}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          if (res.status !== 200) throw new Error(`warm-up got ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        }),
      );
    }
    failOpen = 0;
    let next = 0;
    const r = await autocannon({
      url: `${server.url}${cfg.endpoint}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(payloads.length === 1
        ? { body: payloads[0] }
        : { requests: [{ setupRequest: (req: object) => ({ ...req, body: payloads[next++ % payloads.length] }) }] }),
      connections,
      duration: args.duration,
    });
    return {
      config: cfg.name,
      bodies,
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

/** Progress and errors on stderr (the table goes to stdout). */
const progress = createLogger((text) => process.stderr.write(text));

async function main(): Promise<void> {
  configureCoreFromEnv(process.env); // SKIM_ANALYSIS_CACHE=0: every body analysed as new
  const args = parseArgs(process.argv.slice(2));
  const input = loadInput(args);
  const pruner = createPruner();
  const single = await pruner.prune({ code: input.code, query: input.query, path: input.path });
  const scorer = (await pruner.scorer()).name;
  const lines = input.code.split('\n').length - 1;
  progress.info(
    `input: ${input.path}, ${lines} lines, ${single.tokensIn} tokens -> ${single.tokensOut} (adaptive); scorer ${scorer}; ` +
      `${availableParallelism()} CPUs; ${args.connections} connections, ${args.duration} s per configuration`,
  );
  // The machine may be shared: record how busy it was, the figures depend on it.
  const loadBefore = loadavg()[0];
  const figures: LoadFigure[] = [];
  const distinct = args.bodies.includes('distinct') ? distinctInputs(args.lines) : [];
  if (distinct.length > 0) progress.info(`distinct bodies: ${distinct.length} different ${args.lines}-line files, one after another`);
  for (const cfg of CONFIGS.filter((c) => args.only === undefined || c.name.includes(args.only))) {
    for (const bodies of args.bodies) {
      progress.info(`running: ${cfg.name}, ${bodies} bodies`);
      figures.push(await runOne(cfg, bodies === 'repeated' ? [input] : distinct, bodies, args));
    }
  }
  const rows = figures.map(
    (f) => `| ${f.config} | ${f.bodies} | ${f.rps.toFixed(1)} | ${f.p50} | ${f.p90} | ${f.p99} | ${f.requests} | ${f.errors + f.non2xx} | ${f.failOpen} |`,
  );
  process.stdout.write(
    [
      '| configuration | bodies | requests/s | p50 ms | p90 ms | p99 ms | requests | errors | fail-open |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
  const loadAfter = loadavg()[0];
  process.stdout.write(`\n1-minute load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after\n`);
  if (args.out)
    writeFileSync(
      args.out,
      JSON.stringify(
        { input: { path: input.path, lines, tokens: single.tokensIn, distinctBodies: distinct.length }, scorer, args, loadBefore, loadAfter, figures },
        null,
        2,
      ),
    );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    progress.error(`loadTest: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
