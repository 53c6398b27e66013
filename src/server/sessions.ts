/**
 * The server's session memories: one SessionMemory per client-chosen session id, in this process
 * only (never written to disk). Bounded: at most `maxSessions` (the least recently used goes),
 * and a session unused for `idleMs` is forgotten.
 */
import { SessionMemory } from '../core/session/memory.js';

export interface SessionStoreOptions {
  maxSessions: number;
  idleMs: number;
}

export const DEFAULT_SESSION_STORE: SessionStoreOptions = { maxSessions: 1000, idleMs: 60 * 60 * 1000 };

export class SessionStore {
  /** Map order is recency order: the least recently used first. */
  private readonly sessions = new Map<string, { memory: SessionMemory; usedAt: number }>();

  constructor(
    private readonly opts: SessionStoreOptions = DEFAULT_SESSION_STORE,
    private readonly now: () => number = Date.now,
  ) {}

  get(id: string): SessionMemory {
    const t = this.now();
    for (const [key, s] of this.sessions) {
      if (t - s.usedAt <= this.opts.idleMs) break; // the rest were used more recently
      this.sessions.delete(key);
    }
    let entry = this.sessions.get(id);
    if (entry) this.sessions.delete(id);
    else entry = { memory: new SessionMemory(), usedAt: t };
    entry.usedAt = t;
    this.sessions.set(id, entry);
    while (this.sessions.size > this.opts.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return entry.memory;
  }

  /** Forget what session `id` was shown (of `path`, or all); an unknown id is left unknown. */
  forget(id: string, path?: string): void {
    this.sessions.get(id)?.memory.forget(path);
  }

  get size(): number {
    return this.sessions.size;
  }
}
