/**
 * Session memory on disk, for one-process-per-read shells (`skim cat` / `skim grep` with
 * `--session ID` or SKIM_SESSION): each session is one JSON file under the user's cache directory
 * ($SKIM_SESSION_DIR, else $XDG_CACHE_HOME/skim/sessions, else ~/.cache/skim/sessions), holding
 * per file path the line numbers and texts that session was shown. Nothing is stored unless a
 * session is named.
 *
 * Bounded: a session keeps at most DISK_SESSION_LIMITS (oldest file out first); sessions unused
 * for MAX_AGE_MS are deleted, and at most MAX_SESSIONS are kept (least recently used out).
 * Concurrent calls of one session take turns through a lock file (created exclusively; a lock
 * older than STALE_LOCK_MS is taken over); writes go to a temporary file renamed into place.
 * Any problem with the store (unwritable directory, corrupt file, lock not obtained in time)
 * costs only the memory: the read itself is never lost.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type SessionLimits, SessionMemory, type SessionSnapshot } from '../core/session/memory.js';

export const DISK_SESSION_LIMITS: SessionLimits = { maxFiles: 64, maxChars: 1_500_000 };
export const MAX_SESSIONS = 64;
export const MAX_AGE_MS = 24 * 60 * 60 * 1000;
const STALE_LOCK_MS = 15_000;
const LOCK_WAIT_MS = 10_000;

export function sessionDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKIM_SESSION_DIR) return env.SKIM_SESSION_DIR;
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'skim', 'sessions');
}

/** A session's file name: a hash, so any id is a safe name and ids are not readable from the listing. */
function sessionFile(dir: string, id: string): string {
  return join(dir, `${createHash('sha256').update(id).digest('hex').slice(0, 32)}.json`);
}

export interface OpenSession {
  memory: SessionMemory;
  /** Write what the memory now holds and release the lock. */
  save(): Promise<void>;
  /** Release the lock without writing. */
  release(): Promise<void>;
}

/**
 * Open session `id` for one call: lock it, load its memory. Returns null (with `onWarning`) when
 * the store cannot be used; the caller then prunes without memory.
 */
export async function openSession(id: string, onWarning: (msg: string) => void, dir = sessionDir()): Promise<OpenSession | null> {
  const file = sessionFile(dir, id);
  const lock = `${file}.lock`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (!(await acquire(lock))) {
      onWarning(`session ${id}: another call held it for ${LOCK_WAIT_MS / 1000} s; this read is not remembered`);
      return null;
    }
  } catch (err) {
    onWarning(`session store ${dir} not usable (${(err as Error).message}); this read is not remembered`);
    return null;
  }
  let memory: SessionMemory;
  try {
    const snapshot = JSON.parse(await readFile(file, 'utf8')) as SessionSnapshot;
    memory = SessionMemory.fromSnapshot(snapshot, DISK_SESSION_LIMITS);
  } catch {
    memory = new SessionMemory(DISK_SESSION_LIMITS); // new, expired or unreadable: start afresh
  }
  const release = () => rm(lock, { force: true });
  return {
    memory,
    release,
    save: async () => {
      try {
        const tmp = `${file}.${process.pid}.tmp`;
        await writeFile(tmp, JSON.stringify(memory.snapshot()), { mode: 0o600 });
        await rename(tmp, file);
        await sweep(dir, file);
      } catch (err) {
        onWarning(`session store ${dir}: could not save (${(err as Error).message})`);
      } finally {
        await release();
      }
    },
  };
}

async function acquire(lock: string): Promise<boolean> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      const fh = await open(lock, 'wx');
      await fh.close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      if (Date.now() - (await stat(lock)).mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true });
    } catch {
      // the holder just released it: try again
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Delete sessions unused for MAX_AGE_MS, and the least recently used beyond MAX_SESSIONS. */
async function sweep(dir: string, keep: string): Promise<void> {
  const now = Date.now();
  const sessions: { path: string; mtime: number }[] = [];
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    try {
      sessions.push({ path, mtime: (await stat(path)).mtimeMs });
    } catch {
      // removed meanwhile
    }
  }
  sessions.sort((a, b) => b.mtime - a.mtime);
  for (const [k, s] of sessions.entries()) {
    if (s.path === keep) continue;
    if (k >= MAX_SESSIONS || now - s.mtime > MAX_AGE_MS) await rm(s.path, { force: true });
  }
}
