/**
 * `skim serve`: the HTTP API and playground on a local port.
 */

import type { Server } from 'node:http';
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { DEFAULTS } from '../../server/defaults.js';
import type { PruneRunner } from '../../server/runner.js';
import { DEFAULT_SESSION_PREFIX, DEFAULT_SESSION_STORE, type SessionStore } from '../../server/sessions.js';
import { action, cliIO, cliLog, intAtLeast, MAX_TIMER_MS, numberIn, numberOption, prunerFor, scorerOptions } from '../io.js';
import { whenParentExits } from '../parentWatch.js';

interface ServeOptions {
  host: string;
  port: number;
  workers: number;
  timeout: number;
  maxBody: number;
  maxQueue: number;
  sessionMemory: number;
  sessionStore?: string;
  sessionTtl: number;
  sessionPrefix: string;
  scorer?: string;
  model?: string;
  quiet?: boolean;
}

export function registerServe(program: Command): void {
  const defaultWorkers = Math.max(1, Math.min(4, availableParallelism()));
  const command = program
    .command('serve')
    .description('HTTP API (SWE-Pruner compatible POST /prune, /v1/prune, /v1/rank) and the playground at /')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', numberOption(intAtLeast(0)), 8000)
    .option('--workers <n>', 'prune worker threads (0 = prune on the main thread)', numberOption(intAtLeast(0)), defaultWorkers)
    .option('--timeout <ms>', 'per-request time limit; on expiry the original text is returned', numberOption(intAtLeast(1, MAX_TIMER_MS)), DEFAULTS.timeoutMs)
    .option('--max-body <bytes>', 'largest accepted request body', numberOption(intAtLeast(1)), DEFAULTS.maxBodyBytes)
    .option('--max-queue <n>', 'requests allowed to wait for a worker before 503', numberOption(intAtLeast(0)), DEFAULTS.maxQueue)
    .option(
      '--session-memory <MiB>',
      'memory for session memories, all clients together (least recently used sessions go first)',
      numberOption(numberIn(1)),
      DEFAULT_SESSION_STORE.maxBytes / 2 ** 20,
    )
    .option(
      '--session-store <url>',
      'keep session memories in Redis, shared by replicas: redis://HOST:PORT[/DB] (default: $SKIM_SESSION_STORE, else in this process)',
    )
    .option('--session-ttl <seconds>', 'a session unused this long is forgotten', numberOption(intAtLeast(1)), DEFAULT_SESSION_STORE.idleMs / 1000)
    .option('--session-prefix <prefix>', 'with --session-store: the prefix of every key written', DEFAULT_SESSION_PREFIX)
    .option('-q, --quiet', 'do not log requests');
  scorerOptions(command).action(action((opts: ServeOptions) => serveCommand(opts)));
}

async function serveCommand(opts: ServeOptions): Promise<void> {
  // loaded here, not at registration: `skim --help` should not load the server
  const [{ createApp }, { grammarLanguages }, { listen }, { inlineRunner }, { createWorkerPool }, { watchStalls }] = await Promise.all([
    import('../../server/app.js'),
    import('../../server/info.js'),
    import('../../server/listen.js'),
    import('../../server/runner.js'),
    import('../../server/workerPool.js'),
    import('../../server/stalls.js'),
  ]);
  const log = (line: string) => cliLog().info(line);
  // A wrong store URL, or one not reachable, fails here (exit 64), before anything starts.
  const sessionStore = await openSessionStore(opts, log);
  const pruner = prunerFor(opts);
  // Resolve the scorer now: a bad --model-dir fails at start, not on the first request.
  const scorer = await pruner.scorer();
  const runner: PruneRunner =
    opts.workers > 0
      ? createWorkerPool({ size: opts.workers, scorer: opts.scorer === 'heuristic' ? 'heuristic' : 'learned', modelDir: opts.model })
      : inlineRunner(pruner);
  const app = createApp({
    runner,
    timeoutMs: opts.timeout,
    maxBodyBytes: opts.maxBody,
    maxQueue: opts.maxQueue,
    maxConcurrent: Math.max(1, opts.workers),
    sessions: { ...sessionBudget(opts.sessionMemory * 2 ** 20), idleMs: opts.sessionTtl * 1000 },
    sessionStore,
    model: scorer.name,
    languages: grammarLanguages,
    log: opts.quiet ? (line) => (line.startsWith('skim serve:') ? log(line) : undefined) : log,
  });
  let listening;
  try {
    listening = await listen(app, opts.host, opts.port);
  } catch (err) {
    await runner.close();
    await sessionStore?.close();
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? `port ${opts.port} is already in use` : e.message;
    throw new SkimError(`cannot listen on ${opts.host}:${opts.port}: ${why}`, 'EUSAGE');
  }
  // (a main thread held for long delays every answer, /health's too: say so, and what it was doing)
  watchStalls(listening.server as Server, log);
  const where = sessionStore ? `, sessions in ${String((await sessionStore.health()).url)}` : '';
  log(`skim serve: listening on ${listening.url} (scorer ${scorer.name}, ${runner.kind}${where}); playground at ${listening.url}/`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`skim serve: ${signal === 'parent exited' ? 'the parent process exited' : `${signal} received`}, finishing in-flight requests`);
    await listening.close(5000);
    await runner.close();
    await sessionStore?.close();
    log('skim serve: stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => void stop('SIGHUP')); // its terminal closed
  whenParentExits(() => void stop('parent exited'));
}

/** The shared session store the options or SKIM_SESSION_STORE name (none: sessions in this process). */
async function openSessionStore(opts: ServeOptions, log: (line: string) => void): Promise<SessionStore | undefined> {
  const url = opts.sessionStore ?? cliIO().env.SKIM_SESSION_STORE;
  if (!url) return undefined;
  const { openRedisStore } = await import('../../server/redisSessions.js');
  const { maxSessionBytes } = sessionBudget(opts.sessionMemory * 2 ** 20);
  return openRedisStore({ url, prefix: opts.sessionPrefix, ttlMs: opts.sessionTtl * 1000, maxSessionBytes }, log);
}

/** The session budget and one session's share of it: a quarter, at most the default 32 MiB. */
function sessionBudget(maxBytes: number): { maxBytes: number; maxSessionBytes: number } {
  return { maxBytes, maxSessionBytes: Math.min(DEFAULT_SESSION_STORE.maxSessionBytes, maxBytes / 4) };
}
