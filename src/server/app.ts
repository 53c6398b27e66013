/**
 * The HTTP API as a pure hono app: createApp(options) builds it, `app.request()` tests it, and
 * ./listen.ts attaches it to a node server. Routes:
 *   POST /prune            SWE-Pruner wire-compatible
 *   POST /v1/prune         skim's PruneRequest -> PruneResult; with `command` and no `path`, a
 *                          command's output -> pruneOutput()'s result
 *   POST /v1/prune/batch   { requests: PruneRequest[] } -> { results }
 *   GET  /v1/outputs/:handle?session=ID[&lines=a-b]   an output a session kept
 *   POST /v1/rank          { query, documents } -> documents ordered by relevance
 *   GET  /health, GET /v1/info, GET / (playground), GET /examples[/NAME]
 * Every error leaves through one boundary (app.onError) as JSON with a meaningful status: a known
 * path asked with another method is a 405 whose Allow header names the methods it serves.
 * Pruning fails open: a timeout or a core error returns the original text with an error message.
 */

import { join } from 'node:path';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { diagnostic } from '../core/diagnostics.js';
import { HTTP_STATUS, SkimError } from '../core/errors.js';
import { findStoredOutput, parseOutputRequest, storedLines } from '../core/output/stored.js';
import { isOutputRequest, outputRequestOf, sessionId, withFileRead } from '../core/request.js';
import type { PruneRequest } from '../core/types.js';
import { createLogger } from '../log.js';
import { VERSION } from '../version.js';
import { CLIENT_KEY_HEADER, DEFAULTS } from './defaults.js';
import { ClientGoneError, DeadlineError, OverloadedError, Semaphore, withDeadline } from './limits.js';
import { rankDocuments } from './rank.js';
import { type OutputBody, outputBodyOf, validateBody as parse, parseJsonText, requestOf } from './requests.js';
import type { PruneRunner } from './runner.js';
import { batchRequestSchema, forgetBodySchema, type PruneRequestBody, rankRequestSchema } from './schemas.js';
import {
  type AnswerBody,
  type AnswerFormat,
  failOpenResult,
  outputAnswerJson,
  outputFailOpenPieces,
  type PruneResultJson,
  rawFailOpen,
  resultToJson,
  toSwePrunerResponse,
} from './serialize.js';
import { MemorySessionStore, type SessionScope, type SessionStore, type SessionStoreOptions } from './sessions.js';
import { contentTypeOf, listExamples, PACKAGE_ROOT, readSafeFile } from './static.js';

export interface AppOptions {
  runner: PruneRunner;
  /** Largest accepted request body in bytes (default 8 MiB). */
  maxBodyBytes?: number;
  /** Per-request time limit in ms, waiting for a slot included (default 10 s). */
  timeoutMs?: number;
  /** Prune calls running at once (default 2). */
  maxConcurrent?: number;
  /** Prune calls allowed to wait for a slot; beyond that requests get 503 (default 64). */
  maxQueue?: number;
  /** Where log lines go (default: stderr). Pass `() => {}` to silence. */
  log?: (line: string) => void;
  /** Model description for /v1/info. */
  model?: string;
  /** Languages for /v1/info. */
  languages?: () => string[] | Promise<string[]>;
  publicDir?: string;
  examplesDir?: string;
  /** Bounds of the in-memory session memories (requests with a `session` id). */
  sessions?: Partial<SessionStoreOptions>;
  /** Where session memories live instead (e.g. Redis, shared by replicas); the caller closes it. */
  sessionStore?: SessionStore;
}

export { DEFAULTS };

export function createApp(options: AppOptions): Hono {
  const s = createServing(options);
  const app = new Hono();
  useMiddleware(app, s);
  registerPruneRoutes(app, s, options);
  registerSessionRoutes(app, s);
  registerPlayground(app, options.publicDir ?? join(PACKAGE_ROOT, 'public'), options.examplesDir ?? join(PACKAGE_ROOT, 'examples'));

  // A known path asked with a method it does not serve: 405 with the methods it does.
  for (const [path, allow] of methodsByPath(app)) {
    app.all(path, (c) => {
      throw new MethodNotAllowed(c.req.method, c.req.path, allow);
    });
  }

  app.notFound((c) => errorJson(c, 404, `no route for ${c.req.method} ${c.req.path}`));

  app.onError((err, c) => {
    if (err instanceof HTTPException) return errorJson(c, err.status, err.message);
    if (err instanceof SkimError) return errorJson(c, HTTP_STATUS[err.code], err.message);
    if (err instanceof MethodNotAllowed) {
      c.header('allow', err.allow.join(', '));
      return errorJson(c, 405, err.message);
    }
    if (err instanceof OverloadedError) {
      c.header('retry-after', '1');
      return errorJson(c, 503, err.message);
    }
    s.log(`skim serve: internal error on ${c.req.method} ${c.req.path}: ${errMessage(err)}`);
    return errorJson(c, 500, 'internal server error');
  });

  return app;
}

/** Inputs larger than this (characters or body bytes) are large: they never hold every worker at once. */
const LARGE_INPUT = 1 << 20;

/** A request's size as the large-input rule counts it. */
const sizeOf = (req: PruneRequest) => req.code.length + (req.query?.length ?? 0) + (req.task?.length ?? 0);

/** Answers longer than this go out in pieces: one write of megabytes holds the event loop (and /health) for milliseconds each. */
const STREAM_ABOVE = 1 << 20;
const PIECE = 1 << 18;

/**
 * A body (text and UTF-8 pieces, in order, possibly made lazily) as a stream of pieces of at most
 * PIECE, each made when the socket takes it.
 */
function chunked(pieces: Iterable<AnswerBody>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const it = pieces[Symbol.iterator]();
  let body: AnswerBody | undefined;
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      // (every pull enqueues something or closes: a pull that does neither stalls the stream)
      while (body === undefined || body.length === 0) {
        const next = it.next();
        if (next.done) return controller.close();
        body = next.value;
        at = 0;
      }
      let end = Math.min(body.length, at + PIECE);
      if (typeof body === 'string') {
        // never split a surrogate pair
        if (end < body.length && (body.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++;
        controller.enqueue(encoder.encode(body.slice(at, end)));
      } else controller.enqueue(body.subarray(at, end));
      at = end;
      if (at >= body.length) body = undefined;
    },
  });
}

/**
 * What the routes share: the runner, the limits, the session store, and how one prune, answer or
 * output runs under the limits and fails open.
 */
function createServing(options: AppOptions) {
  const runner = options.runner;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxConcurrent = options.maxConcurrent ?? DEFAULTS.maxConcurrent;
  const maxQueue = options.maxQueue ?? DEFAULTS.maxQueue;
  const semaphore = new Semaphore(maxConcurrent, maxQueue);
  // Large inputs (the ones that can take the whole time limit) run on all workers but one: clients
  // sending them, however many, cannot make everyone else wait for a worker.
  const largeInputs = maxConcurrent > 1 ? new Semaphore(maxConcurrent - 1, maxQueue) : null;
  const log = options.log ?? createLogger((text) => process.stderr.write(text)).info;
  const sessions = options.sessionStore ?? new MemorySessionStore(options.sessions);

  /** The sessions each request uses, stored when it is answered. */
  const scopes = new WeakMap<Context, SessionScope>();

  /** A session id of this request's client as its memory. */
  const sessionOf = (c: Context) => (id: string) => {
    let scope = scopes.get(c);
    if (!scope) scopes.set(c, (scope = sessions.scope()));
    return scope.get(id, sessionNamespace(c));
  };

  /** A request body as a core request: a session id becomes that session's memory. */
  const withSession = async (c: Context, { session, ...req }: PruneRequestBody): Promise<PruneRequest> =>
    session ? { ...req, session: await sessionOf(c)(session) } : req;

  /**
   * `work` under the limits: a slot (bounded queue, shared fairly between clients) and the deadline,
   * waiting for the slot included; dropped when the client closes its connection.
   */
  function underLimits<T>(c: Context, size: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(
      timeoutMs,
      async (signal) => {
        const client = clientAddress(c);
        const releaseLarge = size > LARGE_INPUT && largeInputs ? await largeInputs.acquire(signal, client) : undefined;
        try {
          const release = await semaphore.acquire(signal, client);
          try {
            return await work(signal);
          } finally {
            release();
          }
        } finally {
          releaseLarge?.();
        }
      },
      clientSignal(c),
    );
  }

  const logFailOpen = (message: string, chars: number) => log(`skim serve: fail-open (${message}) for ${chars} chars`);

  /** Why a prune fails open (logged); 503 and the client's errors (SkimError) are thrown instead. */
  function failOpenMessage(err: unknown, req: PruneRequest): string {
    const message = failOpenReason(err);
    logFailOpen(message, req.code.length);
    return message;
  }

  /** One prune under the limits; fails open except when the server is overloaded (503). */
  async function runPrune(c: Context, req: PruneRequest): Promise<PruneResultJson> {
    const started = Date.now();
    try {
      return resultToJson(await underLimits(c, sizeOf(req), (signal) => runner.prune(req, signal)));
    } catch (err) {
      return failOpenResult(req, failOpenMessage(err, req), started);
    }
  }

  /**
   * One prune's answer body (JSON), serialized by the runner where the pruning ran when it can:
   * the main thread then only moves bytes. Fails open like runPrune.
   */
  async function runAnswer(c: Context, req: PruneRequest, format: AnswerFormat): Promise<AnswerBody> {
    const asJson = (r: PruneResultJson) => JSON.stringify(format === 'swe' ? toSwePrunerResponse(req.query ?? '', req.code, r) : r);
    if (!runner.answer) return asJson(await runPrune(c, req));
    const started = Date.now();
    try {
      return await underLimits(c, sizeOf(req), (signal) => runner.answer!(req, format, signal));
    } catch (err) {
      return asJson(failOpenResult(req, failOpenMessage(err, req), started));
    }
  }

  /**
   * A command's output, pruned with its session's output memory under the limits, where the
   * runner prunes (a worker thread); fails open (the output whole) like a prune.
   */
  async function runOutput(c: Context, { req, session: id }: OutputBody): Promise<AnswerBody[]> {
    const session = id === undefined ? undefined : await sessionOf(c)(id);
    try {
      return [
        await underLimits(c, req.text.length, async (signal) =>
          runner.answerOutput ? runner.answerOutput(req, session, signal) : outputAnswerJson(req, session?.outputs),
        ),
      ];
    } catch (err) {
      return [...outputFailOpenPieces(req, failOpenMessage(err, { code: req.text }))];
    }
  }

  return {
    runner,
    log,
    limits: { maxBodyBytes, timeoutMs, maxConcurrent },
    semaphore,
    sessions,
    scopes,
    underLimits,
    logFailOpen,
    runPrune,
    runAnswer,
    runOutput,
    sessionOf,
    withSession,
  };
}

type Serving = ReturnType<typeof createServing>;

/** Why a prune fails open; 503 and the client's errors (SkimError) are thrown instead. */
function failOpenReason(err: unknown): string {
  if (err instanceof OverloadedError) throw err;
  // Misuse (e.g. both ratio and tokens) is the client's to fix: say so instead of failing open.
  if (err instanceof SkimError) throw err;
  return err instanceof DeadlineError || err instanceof ClientGoneError ? err.message : `prune failed: ${errMessage(err)}`;
}

/** Every request: its log line, the body size limit, and its sessions stored once it is answered. */
function useMiddleware(app: Hono, s: Serving): void {
  app.use('*', async (c, next) => {
    const t0 = performance.now();
    await next();
    s.log(`${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - t0).toFixed(1)}ms`);
  });

  app.use(
    '*',
    bodyLimit({
      maxSize: s.limits.maxBodyBytes,
      onError: (c) => errorJson(c, 413, `request body larger than ${s.limits.maxBodyBytes} bytes`),
    }),
  );

  // What the sessions a request used recorded is stored when it is answered; a store that could
  // not be used is said in the answer (a warning), never as an error.
  app.use('*', async (c, next) => {
    let problem: string | undefined;
    try {
      await next();
    } finally {
      problem = await s.scopes.get(c)?.end();
    }
    if (problem) c.res = await withStoreWarning(c.res, problem);
  });
}

/** The pruning routes: /prune, /v1/prune, /v1/prune/batch, /v1/rank; /health and /v1/info. */
function registerPruneRoutes(app: Hono, s: Serving, options: AppOptions): void {
  app.get('/health', async (c) =>
    c.json({
      status: 'healthy',
      model_loaded: true,
      active: s.semaphore.active,
      waiting: s.semaphore.waiting,
      sessions: await s.sessions.health(),
    }),
  );

  app.get('/v1/info', async (c) =>
    c.json({
      name: 'skim',
      version: VERSION,
      model: options.model ?? 'unknown',
      runner: s.runner.kind,
      languages: options.languages ? await options.languages() : [],
      limits: { ...s.limits, maxQueue: s.semaphore.maxWaiting },
    }),
  );

  app.post('/prune', (c) => answerRoute(s, c, 'swe'));
  app.post('/v1/prune', (c) => answerRoute(s, c, 'v1'));

  app.post('/v1/prune/batch', async (c) => {
    const { requests: sent } = parse(batchRequestSchema, await readJson(c));
    const requests = sent.map(withFileRead);
    // every request is checked before any runs: a command's output (`command`, no `path`) or a prune
    const jobs = requests.map((r, i) => {
      if (!isOutputRequest(r)) return { prune: r };
      const { session, ...rest } = r;
      return { output: { req: outputRequestOf(rest, `invalid request: requests.${i}: `), session } };
    });
    const answer = async (job: (typeof jobs)[number]): Promise<AnswerBody[]> =>
      job.prune ? [await s.runAnswer(c, await s.withSession(c, job.prune), 'v1')] : s.runOutput(c, job.output!);
    // Reads of a session build on each other: a batch that names one runs in order.
    let results: AnswerBody[][];
    if (!requests.some((r) => r.session !== undefined)) results = await runAll(jobs, s.limits.maxConcurrent, answer);
    else {
      results = [];
      for (const job of jobs) results.push(await answer(job));
    }
    return jsonBody(c, '{"results":[', ...results.flatMap((r, i) => (i ? [',', ...r] : r)), ']}');
  });

  app.post('/v1/rank', async (c) => {
    const body = parse(rankRequestSchema, await readJson(c));
    const docs = body.documents.map((d) => (typeof d === 'string' ? { code: d } : d));
    // A document that failed open has no real score: report it as an error, ranked last.
    const pruneStrict = async (req: PruneRequest) => {
      const r = await s.runPrune(c, req);
      if (r.error) throw new Error(r.error);
      return { ...r, keepMask: new Uint8Array(r.keepMask) };
    };
    const results = await rankDocuments(pruneStrict, body.query, docs, {
      includeText: body.includeText,
      ratio: body.ratio,
      threshold: body.threshold,
      concurrency: s.limits.maxConcurrent,
    });
    return c.json({ query: body.query, results });
  });
}

/** The session routes: forgetting what a session was shown, and the outputs it kept. */
function registerSessionRoutes(app: Hono, s: Serving): void {
  // The agent's context was compacted: the session forgets what it was shown (of one path, or
  // all), so nothing folds until shown again. The same answer whether the id is known or not.
  app.post('/v1/sessions/:id/forget', async (c) => {
    const id = parse(sessionId, c.req.param('id'));
    const text = await c.req.text();
    const { path } = parse(forgetBodySchema, text.trim() === '' ? {} : parseJsonText(text));
    const problem = await s.sessions.forget(id, sessionNamespace(c), path);
    // (not forgotten, later reads would fold lines the agent no longer has: the client must know)
    if (problem) return errorJson(c, 503, `${problem}: the session did not forget; try again`);
    return c.json({ ok: true });
  });

  /** An output a session kept (`skim show HANDLE:a-b` over HTTP): all of it, or lines a-b. */
  app.get('/v1/outputs/:handle', async (c) => {
    const id = c.req.query('session');
    if (!id) throw new SkimError('the session the output was kept in is missing: ?session=ID', 'EUSAGE');
    const { handle, range } = parseOutputRequest(c.req.param('handle'), c.req.query('lines'));
    const stored = findStoredOutput((await s.sessionOf(c)(id)).outputs, handle, `session ${id}`);
    const shown = storedLines(stored, range);
    return c.json({ handle, command: stored.command, ...shown });
  });
}

/** The playground: its page, its files and the examples it offers. */
function registerPlayground(app: Hono, publicDir: string, examplesDir: string): void {
  app.get('/', (c) => serveFile(c, publicDir, 'index.html'));
  app.get('/examples', async (c) => c.json({ examples: await listExamples(examplesDir) }));
  app.get('/examples/:name', async (c) => {
    const buf = await readSafeFile(examplesDir, c.req.param('name'));
    if (!buf) throw new HTTPException(404, { message: 'no such example' });
    return c.body(new Uint8Array(buf), 200, { 'content-type': 'text/plain; charset=utf-8' });
  });
  app.get('/:file{[A-Za-z0-9_-]+\\.(?:js|css|svg|png|ico|html)}', (c) => serveFile(c, publicDir, c.req.param('file')));
}

/**
 * /v1/prune and /prune. With a runner that reads bodies itself (the worker pool), the body goes to
 * it as bytes: decoding and parsing megabytes happen there, under the time limit. Only when that
 * fails open does the main thread read the body (the answer is the input).
 */
async function answerRoute(s: Serving, c: Context, route: AnswerFormat): Promise<Response> {
  if (!s.runner.answerRaw) {
    const json = await readJson(c);
    const output = outputBodyOf(route, json);
    if (output) return jsonBody(c, ...(await s.runOutput(c, output)));
    const { req, session } = requestOf(route, json);
    return jsonBody(c, await s.runAnswer(c, session === undefined ? req : await s.withSession(c, { ...req, session }), route));
  }
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const started = Date.now();
  try {
    return jsonBody(c, await s.underLimits(c, bytes.length, (signal) => s.runner.answerRaw!(bytes, route, s.sessionOf(c), signal)));
  } catch (err) {
    const message = failOpenReason(err);
    // the input whole, read from the body and written back by the runner's thread for that when it has one
    if (s.runner.failOpenRaw) {
      try {
        const { json, chars } = await s.runner.failOpenRaw(bytes, route, message, started);
        s.logFailOpen(message, chars);
        return jsonBody(c, json);
      } catch (e) {
        if (e instanceof SkimError) throw e;
        // that thread is gone: this one reads the body
      }
    }
    const { pieces, chars } = rawFailOpen(bytes, route, message, started);
    s.logFailOpen(message, chars);
    return c.body(chunked(pieces), 200, { 'content-type': 'application/json' });
  }
}

/** A JSON answer from pieces of text or UTF-8; a large one goes out in pieces (chunked). */
function jsonBody(c: Context, ...pieces: AnswerBody[]): Response {
  const size = pieces.reduce((n, p) => n + p.length, 0);
  const headers = { 'content-type': 'application/json' };
  if (size > STREAM_ABOVE) return c.body(chunked(pieces), 200, headers);
  if (pieces.every((p) => typeof p === 'string')) return c.body(pieces.join(''), 200, headers);
  return c.body(new Uint8Array(Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))), 200, headers);
}

/** Run items with at most `lanes` of them in flight, so one batch cannot fill the queue. */
async function runAll<T, R>(items: T[], lanes: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const running = Array.from({ length: Math.min(lanes, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(running);
  return out;
}

class MethodNotAllowed extends Error {
  constructor(
    method: string,
    path: string,
    readonly allow: string[],
  ) {
    super(`${method} is not allowed on ${path}; use ${allow.join(' or ')}`);
  }
}

/** The methods each registered route path answers (middleware excluded); HEAD is served with GET. */
function methodsByPath(app: Hono): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const { method, path } of app.routes) {
    if (method === 'ALL') continue;
    const methods = byPath.get(path) ?? [];
    for (const m of method === 'GET' ? ['GET', 'HEAD'] : [method]) if (!methods.includes(m)) methods.push(m);
    byPath.set(path, methods);
  }
  return byPath;
}

async function serveFile(c: Context, dir: string, name: string): Promise<Response> {
  const buf = await readSafeFile(dir, name);
  if (!buf) throw new HTTPException(404, { message: `no such file: ${name}` });
  return c.body(new Uint8Array(buf), 200, { 'content-type': contentTypeOf(name), 'cache-control': 'no-cache' });
}

function errorJson(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.json({ error: { status, message } }, status);
}

/** The body as JSON whatever the content type (curl -d sends form-encoded by default). */
async function readJson(c: Context): Promise<unknown> {
  return parseJsonText(await c.req.text());
}

/** The client's network address (requests made in-process, as tests do, have none). */
function clientAddress(c: Context): string {
  return (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? '';
}

/** Fires when the client closed its connection before its answer was sent. */
function clientSignal(c: Context): AbortSignal | undefined {
  return (c.env as { incoming?: unknown } | undefined)?.incoming ? c.req.raw.signal : undefined;
}

/**
 * Whose session ids a request names: the client's key (the `X-Skim-Client` header), else its
 * network address. Two clients' sessions never mix, even under the same id.
 */
function sessionNamespace(c: Context): string {
  const key = c.req.header(CLIENT_KEY_HEADER);
  return key ? `key:${key}` : `addr:${clientAddress(c)}`;
}

/**
 * The answer with the session store's problem added as a `session-store-unavailable` warning (to
 * each result of a batch), and named in the X-Skim-Warning header. Only answers of a request whose
 * store failed are read again: the cost falls on the degraded case.
 */
async function withStoreWarning(res: Response, problem: string): Promise<Response> {
  const headers = new Headers(res.headers);
  headers.set('x-skim-warning', 'session-store-unavailable');
  if (!(headers.get('content-type') ?? '').startsWith('application/json')) return new Response(res.body, { status: res.status, headers });
  const body = JSON.parse(await res.text()) as Record<string, unknown>;
  const d = diagnostic('session-store-unavailable', problem);
  const add = (r: unknown) => {
    if (typeof r !== 'object' || r === null) return;
    const o = r as { warnings?: unknown; diagnostics?: unknown };
    o.warnings = [...(Array.isArray(o.warnings) ? o.warnings : []), d.message];
    if (Array.isArray(o.diagnostics)) o.diagnostics.push(d);
  };
  if (Array.isArray(body.results)) body.results.forEach(add);
  else add(body);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: res.status, headers });
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
