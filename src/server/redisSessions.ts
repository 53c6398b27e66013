/**
 * Session memories in Redis (or a protocol-compatible server such as Valkey), shared by every
 * replica of `skim serve` that names the same store: a read on one replica folds what another
 * showed. One hash per session, under `prefix` + a hash of its client and id, holding the session
 * (`d`, SessionMemory's snapshot as JSON) and a version token (`v`); it expires `ttlMs` after its
 * last use.
 *
 * A request loads the session (and refreshes its expiry), prunes with that copy, and once
 * answered adds what its reads recorded (SessionMemory.changes) to the session as it is then: a
 * Lua script writes only when the version is still the one read, else the latest value is read
 * and the changes applied again (bounded attempts). Two replicas writing one session lose no update.
 *
 * Bounded per session: files are evicted oldest first to keep it within `maxSessionBytes`
 * (estimated as in memory); a session whose stored value would still be larger (kept command
 * outputs) is not written: that read is not remembered, with a warning.
 *
 * Fails open: every call is bounded by `timeoutMs`; while Redis is down, slow or full a request is
 * pruned without memory (or not remembered) and its answer carries a `session-store-unavailable`
 * warning. The client reconnects by itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { SkimError } from '../core/errors.js';
import { DEFAULT_SESSION_LIMITS, type SessionChanges, SessionMemory, type SessionSnapshot } from '../core/session/memory.js';
import type { SessionRead } from '../tools/sessionStore.js';
import { DEFAULT_SESSION_PREFIX, DEFAULT_SESSION_STORE, type SessionScope, type SessionStore } from './sessions.js';

export interface RedisStoreOptions {
  /** redis://[user:password@]HOST:PORT[/DB] (rediss:// for TLS). */
  url: string;
  /** Every key the store writes starts with this. */
  prefix: string;
  /** A session unused this long expires. */
  ttlMs: number;
  /** Estimated bytes one session may hold (and the largest value stored for it). */
  maxSessionBytes: number;
  /** The longest any one Redis call may take. */
  timeoutMs: number;
  /** The longest the start may take to reach the store. */
  connectTimeoutMs: number;
}

export const DEFAULT_REDIS_STORE: Omit<RedisStoreOptions, 'url'> = {
  prefix: DEFAULT_SESSION_PREFIX,
  ttlMs: DEFAULT_SESSION_STORE.idleMs,
  maxSessionBytes: DEFAULT_SESSION_STORE.maxSessionBytes,
  timeoutMs: 500,
  connectTimeoutMs: 3000,
};

/**
 * A write of a session changed by others meanwhile is tried again (each writer that loses has seen
 * another win), within SAVE_BUDGET store timeouts in all; beyond that, the read is not remembered.
 */
const SAVE_BUDGET = 4;

/** The session's version and value; the expiry refreshed when it exists. */
const LOAD = `local r = redis.call('HMGET', KEYS[1], 'v', 'd')
if r[1] then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return r`;

/** Write the value only if the version is still the one read (0 otherwise). */
const SAVE = `if (redis.call('HGET', KEYS[1], 'v') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

/** A session as loaded: its memory, and the version it was at. */
interface Loaded {
  version: string;
  memory: SessionMemory;
}

interface StoreCommands {
  ping(): Promise<string>;
  skimLoad(key: string, ttlMs: number): Promise<[string | null, string | null]>;
  skimSave(key: string, version: string, next: string, data: string, ttlMs: number): Promise<number>;
}

/** Check a store URL: a clear usage error for anything but redis:// or rediss:// with a host. */
export function parseStoreUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SkimError(`--session-store: not a URL: ${JSON.stringify(url)} (expected redis://HOST:PORT[/DB])`, 'EUSAGE');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new SkimError(`--session-store: unsupported store ${JSON.stringify(parsed.protocol)} (expected redis://HOST:PORT[/DB])`, 'EUSAGE');
  if (!parsed.hostname) throw new SkimError(`--session-store: no host in ${JSON.stringify(url)} (expected redis://HOST:PORT[/DB])`, 'EUSAGE');
  if (!/^\/?\d*$/.test(parsed.pathname)) throw new SkimError(`--session-store: the database must be a number: ${JSON.stringify(url)}`, 'EUSAGE');
  return parsed;
}

/** The URL as shown in logs and /health: without a password. */
function shownUrl(url: URL): string {
  const u = new URL(url.href);
  if (u.password) u.password = '***';
  return u.href;
}

/**
 * Connect to the store at `url` and check it answers: a wrong URL or a store that cannot be
 * reached within connectTimeoutMs is a usage error at start (SkimError EUSAGE).
 */
export async function openRedisStore(
  opts: Partial<Omit<RedisStoreOptions, 'url'>> & { url: string },
  log: (line: string) => void = () => {},
): Promise<RedisSessionStore> {
  const o: RedisStoreOptions = { ...DEFAULT_REDIS_STORE, ...opts };
  const url = parseStoreUrl(o.url);
  const redis = new Redis(url.href, {
    lazyConnect: true,
    // fail at once while disconnected, and on a broken connection, instead of queueing
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: o.timeoutMs,
    connectTimeout: o.connectTimeoutMs,
    // reconnect for ever, at most a second apart
    retryStrategy: (times) => Math.min(times * 50, 1000),
  });
  let lastError = '';
  let started = false;
  redis.on('error', (err: Error) => {
    // (logged once per cause; at start the error is the one thrown)
    if (started && err.message !== lastError) log(`skim serve: session store ${shownUrl(url)}: ${err.message}`);
    lastError = err.message;
  });
  redis.on('ready', () => {
    if (lastError) log(`skim serve: session store ${shownUrl(url)}: connected again`);
    lastError = '';
  });
  try {
    await bounded(redis.connect(), o.connectTimeoutMs, 'no answer');
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new SkimError(`--session-store: cannot reach ${shownUrl(url)}: ${lastError || errMessage(err)}`, 'EUSAGE');
  }
  started = true;
  return new RedisSessionStore(redis, o, shownUrl(url));
}

export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis';
  private readonly cmd: StoreCommands;
  private readonly limits = { ...DEFAULT_SESSION_LIMITS };
  /** Why the last call to the store failed (none since it answered). */
  private failure: string | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly opts: RedisStoreOptions,
    private readonly url: string,
  ) {
    redis.defineCommand('skimLoad', { numberOfKeys: 1, lua: LOAD });
    redis.defineCommand('skimSave', { numberOfKeys: 1, lua: SAVE });
    this.cmd = redis as unknown as StoreCommands;
    this.limits.maxBytes = opts.maxSessionBytes;
  }

  /** The key of session `id` of `client`: a hash, so any id is a safe key and ids are not readable from the key space. */
  keyOf(id: string, client: string): string {
    return `${this.opts.prefix}session:${createHash('sha256').update(client).update('\u0000').update(id).digest('hex').slice(0, 32)}`;
  }

  scope(): SessionScope {
    const opened = new Map<string, Promise<Loaded | null>>();
    let problem: string | undefined;
    return {
      get: async (id, client) => {
        const key = this.keyOf(id, client);
        let loading = opened.get(key);
        if (!loading) {
          loading = this.load(key).catch((err: unknown) => {
            problem ??= `session store unavailable (${errMessage(err)}): pruned without session memory, and not remembered`;
            return null;
          });
          opened.set(key, loading);
        }
        return (await loading)?.memory ?? new SessionMemory(this.limits);
      },
      end: async () => {
        for (const [key, loading] of opened) {
          const loaded = await loading;
          if (!loaded) continue; // the store was not usable: nothing of this session to add to
          const failed = await this.save(key, loaded.memory.changes(), true, loaded).catch(
            (err: unknown) => `session store unavailable (${errMessage(err)}): this read is not remembered`,
          );
          problem ??= failed;
        }
        return problem;
      },
    };
  }

  /**
   * One read of session `id` of `client` outside the server (the CLI, its daemon, `skim mcp`), as
   * the disk store's beginRead: commit adds what the read recorded to the session as it is then,
   * abort makes the session forget the files the read showed. Problems go to `onWarning`.
   */
  async beginRead(id: string, client: string, onWarning: (msg: string) => void, canonical?: (path: string) => string): Promise<SessionRead> {
    const key = this.keyOf(id, client);
    let loaded: Loaded | null = null;
    try {
      loaded = await this.load(key, canonical);
    } catch (err) {
      onWarning(`session store unavailable (${errMessage(err)}): pruned without session memory, and not remembered`);
    }
    const memory = loaded?.memory ?? new SessionMemory(this.limits, canonical);
    let ended: Promise<void> | null = null;
    const end = (changes: () => SessionChanges, asRead?: Loaded) =>
      (ended ??= (async () => {
        if (!loaded) return; // the store was not usable
        const problem = await this.save(key, changes(), true, asRead).catch(
          (err: unknown) => `session store unavailable (${errMessage(err)}): this read is not remembered`,
        );
        if (problem) onWarning(problem);
      })());
    return {
      memory,
      commit: () => end(() => memory.changes(), loaded ?? undefined),
      abort: () =>
        end(() => {
          const { files, forget } = memory.changes();
          return { forgetAll: false, forget: [...files.map((f) => f[0]), ...forget], files: [], reads: 0, recent: [] };
        }),
    };
  }

  async forget(id: string, client: string, path?: string): Promise<string | undefined> {
    const changes: SessionChanges = { forgetAll: path === undefined, forget: path === undefined ? [] : [path], files: [], reads: 0, recent: [] };
    try {
      return await this.save(this.keyOf(id, client), changes, false);
    } catch (err) {
      return `session store unavailable (${errMessage(err)})`;
    }
  }

  /** Ready, or unavailable (with why): after a failed call, the store is asked (PING) before it counts as ready again. */
  async health(): Promise<Record<string, unknown>> {
    if (this.failure !== undefined && this.redis.status === 'ready') await this.call((c) => c.ping()).catch(() => {});
    const ready = this.redis.status === 'ready' && this.failure === undefined;
    return { store: this.kind, url: this.url, state: ready ? 'ready' : 'unavailable', ...(ready ? {} : { error: this.failure ?? this.redis.status }) };
  }

  async close(): Promise<void> {
    try {
      await bounded(this.redis.quit(), this.opts.timeoutMs, 'no answer');
    } catch {
      this.redis.disconnect();
    }
  }

  /** One call to the store, bounded by timeoutMs whatever the client does (a dead socket not yet noticed, a reconnection). */
  private async call<T>(command: (c: StoreCommands) => Promise<T>): Promise<T> {
    try {
      const answer = await bounded(command(this.cmd), this.opts.timeoutMs, 'no answer from the session store');
      this.failure = undefined;
      return answer;
    } catch (err) {
      this.failure = errMessage(err);
      throw err;
    }
  }

  /** The session stored under `key` (an empty one when there is none), its expiry refreshed. */
  private async load(key: string, canonical?: (path: string) => string): Promise<Loaded> {
    const [version, data] = await this.call((c) => c.skimLoad(key, this.opts.ttlMs));
    return { version: version ?? '', memory: SessionMemory.fromSnapshot(data ? (JSON.parse(data) as SessionSnapshot) : undefined, this.limits, canonical) };
  }

  /**
   * Add `changes` to the session as it is now (compare-and-set on its version, again on a
   * concurrent write). Resolves to a problem when the session is not written (over its cap, or
   * changed by others at every attempt); throws when the store cannot be used. `asRead`: the copy
   * the changes were recorded in, and the version it was loaded at: written as it is when no one
   * wrote the session meanwhile (no second read of it).
   */
  private async save(key: string, changes: SessionChanges, create = true, asRead?: Loaded): Promise<string | undefined> {
    const deadline = Date.now() + SAVE_BUDGET * this.opts.timeoutMs;
    for (let attempt = 0; attempt === 0 || Date.now() < deadline; attempt++) {
      // (after a lost race, a short random pause spreads the writers that lost together)
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(attempt, 10)));
      let version: string;
      let memory: SessionMemory;
      if (attempt === 0 && asRead) ({ version, memory } = asRead);
      else {
        const [stored, data] = await this.call((c) => c.skimLoad(key, this.opts.ttlMs));
        if (!data && !create) return undefined; // nothing to forget
        version = stored ?? '';
        memory = SessionMemory.fromSnapshot(data ? (JSON.parse(data) as SessionSnapshot) : undefined, this.limits);
        memory.applyChanges(changes);
      }
      const value = JSON.stringify(memory.snapshot());
      if (Buffer.byteLength(value) > this.opts.maxSessionBytes)
        return `session over its size cap of ${this.opts.maxSessionBytes} bytes in the session store (its kept outputs): this read is not remembered`;
      if ((await this.call((c) => c.skimSave(key, version, randomBytes(8).toString('hex'), value, this.opts.ttlMs))) === 1) return undefined;
    }
    return `session changed by other requests at each attempt to write it for ${SAVE_BUDGET * this.opts.timeoutMs} ms: this read is not remembered`;
  }
}

/** `work`, or a rejection after `ms`. */
function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
