/**
 * Where the server keeps session memories: the SessionStore interface, and its in-process
 * implementation (MemorySessionStore; ./redisSessions.ts keeps them in Redis, shared by replicas).
 *
 * A request uses sessions through a SessionScope: `get` gives the memory to prune with, `end`
 * stores what the request's reads recorded once it is answered. A store that cannot be used
 * costs only the memory: `get` then gives an empty memory and the scope reports a problem,
 * which the server adds to the answer as a `session-store-unavailable` warning.
 */
import { DEFAULT_SESSION_LIMITS, SessionMemory } from '../core/session/memory.js';

export interface SessionStore {
  /** "memory" or "redis". */
  readonly kind: string;
  /** The sessions of one request. */
  scope(): SessionScope;
  /** Forget what session `id` of `client` was shown (of `path`, or all); resolves to a problem, if the store had one. */
  forget(id: string, client: string, path?: string): Promise<string | undefined>;
  /** What /health shows of the store. */
  health(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface SessionScope {
  /** The memory of session `id` of `client` for this request (the same one for every call). */
  get(id: string, client: string): Promise<SessionMemory>;
  /** The request is answered: store what its sessions recorded. Resolves to a problem, if the store had one this request. */
  end(): Promise<string | undefined>;
}

/**
 * The server's session memories in this process only (never written to disk): one SessionMemory
 * per session id of a client. Bounded in bytes, whatever ids and bodies arrive: all sessions
 * together hold at most `maxBytes` (estimated, SessionMemory.size.bytes; the least recently used
 * session goes first), one session at most `maxSessionBytes` (its oldest files go first), and a
 * session unused for `idleMs` is forgotten. A session forgotten early only costs folding: its next
 * read is shown whole.
 */
export interface SessionStoreOptions {
  /** Estimated bytes all session memories may hold together. */
  maxBytes: number;
  /** Estimated bytes one session may hold (at most maxBytes). */
  maxSessionBytes: number;
  idleMs: number;
}

/** The prefix of every key a shared store writes. */
export const DEFAULT_SESSION_PREFIX = 'skim:';

export const DEFAULT_SESSION_STORE: SessionStoreOptions = { maxBytes: 256 * 2 ** 20, maxSessionBytes: 32 * 2 ** 20, idleMs: 60 * 60 * 1000 };

/** What an empty session costs (its entry, its SessionMemory and maps), besides its key. */
const SESSION_BYTES = 512;

interface Entry {
  memory: SessionMemory;
  usedAt: number;
  /** Its size when last measured (counted in the store's total). */
  bytes: number;
}

export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory';
  /** Map order is recency order: the least recently used first. */
  private readonly sessions = new Map<string, Entry>();
  private total = 0;
  private readonly opts: SessionStoreOptions;

  constructor(
    opts: Partial<SessionStoreOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.opts = { ...DEFAULT_SESSION_STORE, ...opts };
    this.opts.maxSessionBytes = Math.min(this.opts.maxSessionBytes, this.opts.maxBytes);
  }

  /**
   * The memory of session `id` of client `client` (a new one when unknown: an id names nothing
   * another client made). Clients are separate namespaces: the same id of two clients is two sessions.
   */
  get(id: string, client = ''): SessionMemory {
    const t = this.now();
    for (const [key, s] of this.sessions) {
      if (t - s.usedAt <= this.opts.idleMs) break; // the rest were used more recently
      this.drop(key);
    }
    const key = `${client}\u0000${id}`;
    let entry = this.sessions.get(key);
    if (entry) this.sessions.delete(key);
    else {
      const limits = { ...DEFAULT_SESSION_LIMITS, maxBytes: this.opts.maxSessionBytes - entryBytes(key) };
      entry = { memory: new SessionMemory(limits), usedAt: t, bytes: 0 };
    }
    entry.usedAt = t;
    this.sessions.set(key, entry);
    this.measure(key, entry);
    this.evict();
    return entry.memory;
  }

  /**
   * Take in what these sessions (`[id, client]`; default: all) have recorded since they were
   * handed out, and evict the least recently used sessions until all fit in maxBytes. The server
   * calls it with the sessions a request used when the request is done.
   */
  settle(used?: Iterable<[id: string, client: string]>): void {
    const keys = used ? Array.from(used, ([id, client]) => `${client}\u0000${id}`) : [...this.sessions.keys()];
    for (const key of keys) {
      const entry = this.sessions.get(key);
      if (!entry) continue;
      entry.memory.clearChanges(); // the memory is the session itself: nothing to hand on
      this.measure(key, entry);
    }
    this.evict();
  }

  scope(): SessionScope {
    const used: Array<[string, string]> = [];
    return {
      get: async (id, client) => {
        used.push([id, client]);
        return this.get(id, client);
      },
      end: async () => {
        this.settle(used);
        return undefined;
      },
    };
  }

  async health(): Promise<Record<string, unknown>> {
    return { store: this.kind, count: this.size, bytes: this.bytes };
  }

  async close(): Promise<void> {}

  /** The memory of a session still held, without counting it as a use (for inspection). */
  peek(id: string, client = ''): SessionMemory | undefined {
    return this.sessions.get(`${client}\u0000${id}`)?.memory;
  }

  /** Forget what session `id` of `client` was shown (of `path`, or all); an unknown id is left unknown. */
  async forget(id: string, client = '', path?: string): Promise<undefined> {
    const key = `${client}\u0000${id}`;
    const entry = this.sessions.get(key);
    if (!entry) return;
    entry.memory.forget(path);
    entry.memory.clearChanges();
    this.measure(key, entry);
  }

  /** Sessions held. */
  get size(): number {
    return this.sessions.size;
  }

  /** Estimated bytes held by all sessions, as of the last settle. */
  get bytes(): number {
    return this.total;
  }

  private measure(key: string, entry: Entry): void {
    const bytes = entryBytes(key) + entry.memory.size.bytes;
    this.total += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  private evict(): void {
    while (this.total > this.opts.maxBytes && this.sessions.size > 0) this.drop(this.sessions.keys().next().value!);
  }

  private drop(key: string): void {
    const entry = this.sessions.get(key);
    if (!entry) return;
    this.sessions.delete(key);
    this.total -= entry.bytes;
  }
}

const entryBytes = (key: string) => SESSION_BYTES + 2 * key.length;
