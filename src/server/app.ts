/**
 * The HTTP API as a pure hono app: createApp(options) builds it, `app.request()` tests it, and
 * ./listen.ts attaches it to a node server. Routes:
 *   POST /prune            SWE-Pruner wire-compatible
 *   POST /v1/prune         skim's PruneRequest -> PruneResult
 *   POST /v1/prune/batch   { requests: PruneRequest[] } -> { results }
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
import { HTTP_STATUS, SkimError } from '../core/errors.js';
import { sessionId } from '../core/request.js';
import type { PruneRequest } from '../core/types.js';
import { VERSION } from '../version.js';
import { DEFAULTS } from './defaults.js';
import { DeadlineError, OverloadedError, Semaphore, withDeadline } from './limits.js';
import { rankDocuments } from './rank.js';
import { bodyText, validateBody as parse, parseJsonText, requestOf } from './requests.js';
import type { PruneRunner } from './runner.js';
import { batchRequestSchema, forgetBodySchema, type PruneRequestBody, rankRequestSchema } from './schemas.js';
import { type AnswerBody, type AnswerFormat, failOpenPieces, failOpenResult, type PruneResultJson, resultToJson, toSwePrunerResponse } from './serialize.js';
import { SessionStore, type SessionStoreOptions } from './sessions.js';
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
  sessions?: SessionStoreOptions;
}

export { DEFAULTS };

export function createApp(options: AppOptions): Hono {
  const runner = options.runner;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxConcurrent = options.maxConcurrent ?? DEFAULTS.maxConcurrent;
  const semaphore = new Semaphore(maxConcurrent, options.maxQueue ?? DEFAULTS.maxQueue);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const publicDir = options.publicDir ?? join(PACKAGE_ROOT, 'public');
  const sessions = new SessionStore(options.sessions);
  const examplesDir = options.examplesDir ?? join(PACKAGE_ROOT, 'examples');

  /** `work` under the limits: a slot (bounded queue) and the deadline, waiting for the slot included. */
  function underLimits<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(timeoutMs, async (signal) => {
      const release = await semaphore.acquire(signal);
      try {
        return await work(signal);
      } finally {
        release();
      }
    });
  }

  /** Why a prune fails open (logged); 503 and the client's errors (SkimError) are thrown instead. */
  function failOpenMessage(err: unknown, req: PruneRequest): string {
    if (err instanceof OverloadedError) throw err;
    // Misuse (e.g. both ratio and tokens) is the client's to fix: say so instead of failing open.
    if (err instanceof SkimError) throw err;
    const message = err instanceof DeadlineError ? err.message : `prune failed: ${errMessage(err)}`;
    log(`skim serve: fail-open (${message}) for ${req.code.length} chars`);
    return message;
  }

  /** The fail-open result for a prune that failed or ran out of time. */
  function failOpen(err: unknown, req: PruneRequest, started: number): PruneResultJson {
    return failOpenResult(req, failOpenMessage(err, req), started);
  }

  /** One prune under the limits; fails open except when the server is overloaded (503). */
  async function runPrune(req: PruneRequest): Promise<PruneResultJson> {
    const started = Date.now();
    try {
      return resultToJson(await underLimits((signal) => runner.prune(req, signal)));
    } catch (err) {
      return failOpen(err, req, started);
    }
  }

  /**
   * One prune's answer body (JSON), serialized by the runner where the pruning ran when it can:
   * the main thread then only moves bytes. Fails open like runPrune.
   */
  async function runAnswer(req: PruneRequest, format: AnswerFormat): Promise<AnswerBody> {
    const asJson = (r: PruneResultJson) => JSON.stringify(format === 'swe' ? toSwePrunerResponse(req.query ?? '', req.code, r) : r);
    if (!runner.answer) return asJson(await runPrune(req));
    const started = Date.now();
    try {
      return await underLimits((signal) => runner.answer!(req, format, signal));
    } catch (err) {
      return asJson(failOpen(err, req, started));
    }
  }

  /** A JSON answer from pieces of text or UTF-8; a large one goes out in pieces (chunked). */
  const jsonBody = (c: Context, ...pieces: AnswerBody[]) => {
    const size = pieces.reduce((n, p) => n + p.length, 0);
    const headers = { 'content-type': 'application/json' };
    if (size > STREAM_ABOVE) return c.body(chunked(pieces), 200, headers);
    if (pieces.every((p) => typeof p === 'string')) return c.body(pieces.join(''), 200, headers);
    return c.body(new Uint8Array(Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))), 200, headers);
  };

  /** Run items with at most `maxConcurrent` of them in flight, so one batch cannot fill the queue. */
  async function runAll<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
    const out = new Array<R>(items.length);
    let next = 0;
    const lanes = Array.from({ length: Math.min(maxConcurrent, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    });
    await Promise.all(lanes);
    return out;
  }

  const app = new Hono();

  app.use('*', async (c, next) => {
    const t0 = performance.now();
    await next();
    log(`${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - t0).toFixed(1)}ms`);
  });

  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => errorJson(c, 413, `request body larger than ${maxBodyBytes} bytes`),
    }),
  );

  app.get('/health', (c) => c.json({ status: 'healthy', model_loaded: true, active: semaphore.active, waiting: semaphore.waiting }));

  app.get('/v1/info', async (c) =>
    c.json({
      name: 'skim',
      version: VERSION,
      model: options.model ?? 'unknown',
      runner: runner.kind,
      languages: options.languages ? await options.languages() : [],
      limits: { maxBodyBytes, timeoutMs, maxConcurrent, maxQueue: semaphore.maxWaiting },
    }),
  );

  /** A request body as a core request: a session id becomes that session's memory. */
  const withSession = ({ session, ...req }: PruneRequestBody): PruneRequest => (session ? { ...req, session: sessions.get(session) } : req);

  /**
   * /v1/prune and /prune. With a runner that reads bodies itself (the worker pool), the body goes to
   * it as bytes: decoding and parsing megabytes happen there, under the time limit. Only when that
   * fails open does the main thread read the body (the answer is the input).
   */
  async function answerRoute(c: Context, route: AnswerFormat): Promise<Response> {
    if (!runner.answerRaw) {
      const { req, session } = requestOf(route, await readJson(c));
      return jsonBody(c, await runAnswer(session === undefined ? req : withSession({ ...req, session }), route));
    }
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const started = Date.now();
    try {
      return jsonBody(c, await underLimits((signal) => runner.answerRaw!(bytes, route, (id) => sessions.get(id), signal)));
    } catch (err) {
      if (err instanceof SkimError) throw err;
      const { req } = requestOf(route, parseJsonText(bodyText(bytes)));
      const message = failOpenMessage(err, req);
      return c.body(chunked(failOpenPieces(req, message, started, route)), 200, { 'content-type': 'application/json' });
    }
  }

  app.post('/prune', (c) => answerRoute(c, 'swe'));
  app.post('/v1/prune', (c) => answerRoute(c, 'v1'));

  app.post('/v1/prune/batch', async (c) => {
    const { requests } = parse(batchRequestSchema, await readJson(c));
    // Reads of a session build on each other: a batch that names one runs in order.
    const reqs = requests.map(withSession);
    const answer = (r: PruneRequest) => runAnswer(r, 'v1');
    let results: AnswerBody[];
    if (!requests.some((r) => r.session !== undefined)) results = await runAll(reqs, answer);
    else {
      results = [];
      for (const r of reqs) results.push(await answer(r));
    }
    return jsonBody(c, '{"results":[', ...results.flatMap((r, i) => (i ? [',', r] : [r])), ']}');
  });

  // The agent's context was compacted: the session forgets what it was shown (of one path, or
  // all), so nothing folds until shown again. The same answer whether the id is known or not.
  app.post('/v1/sessions/:id/forget', async (c) => {
    const id = parse(sessionId, c.req.param('id'));
    const text = await c.req.text();
    const { path } = parse(forgetBodySchema, text.trim() === '' ? {} : parseJsonText(text));
    sessions.forget(id, path);
    return c.json({ ok: true });
  });

  app.post('/v1/rank', async (c) => {
    const body = parse(rankRequestSchema, await readJson(c));
    const docs = body.documents.map((d) => (typeof d === 'string' ? { code: d } : d));
    // A document that failed open has no real score: report it as an error, ranked last.
    const pruneStrict = async (req: PruneRequest) => {
      const r = await runPrune(req);
      if (r.error) throw new Error(r.error);
      return { ...r, keepMask: new Uint8Array(r.keepMask) };
    };
    const results = await rankDocuments(pruneStrict, body.query, docs, {
      includeText: body.includeText,
      ratio: body.ratio,
      threshold: body.threshold,
      concurrency: maxConcurrent,
    });
    return c.json({ query: body.query, results });
  });

  // --- playground ---
  app.get('/', (c) => serveFile(c, publicDir, 'index.html'));
  app.get('/examples', async (c) => c.json({ examples: await listExamples(examplesDir) }));
  app.get('/examples/:name', async (c) => {
    const buf = await readSafeFile(examplesDir, c.req.param('name'));
    if (!buf) throw new HTTPException(404, { message: 'no such example' });
    return c.body(new Uint8Array(buf), 200, { 'content-type': 'text/plain; charset=utf-8' });
  });
  app.get('/:file{[A-Za-z0-9_-]+\\.(?:js|css|svg|png|ico|html)}', (c) => serveFile(c, publicDir, c.req.param('file')));

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
    log(`skim serve: internal error on ${c.req.method} ${c.req.path}: ${errMessage(err)}`);
    return errorJson(c, 500, 'internal server error');
  });

  return app;
}

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

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
