/**
 * Session memory on disk, for one-process-per-read shells (`skim cat` / `skim grep` with
 * `--session ID` or SKIM_SESSION): each session is one JSON file under the user's cache directory
 * ($SKIM_SESSION_DIR, else $XDG_CACHE_HOME/skim/sessions, else ~/.cache/skim/sessions), holding
 * per file path the line numbers and texts that session was shown. Nothing is stored unless a
 * session is named.
 *
 * The store owns only what it made: its folder carries a marker file (STORE_MARKER), written when
 * the folder was new or empty; a folder with other content and no marker is refused. Within it,
 * only names of the store's own shape (OWN_NAME: prefix, hash, suffix) are ever read, replaced or
 * deleted. Temporary files are created exclusively (O_EXCL, 0600: a planted symlink is not
 * followed) in the store's folder, then renamed into place.
 *
 * Bounded: a session keeps at most DISK_SESSION_LIMITS (oldest file out first); sessions unused
 * for MAX_AGE_MS are deleted, and at most MAX_SESSIONS are kept (least recently used out).
 * Concurrent calls of one session take turns through a lock file (created exclusively; a lock
 * older than STALE_LOCK_MS is taken over).
 * Any problem with the store (unwritable or foreign directory, corrupt file, lock not obtained in
 * time) costs only the memory: the read itself is never lost.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
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

/** The file that makes a folder a skim session store. */
export const STORE_MARKER = '.skim-session-store';
const PREFIX = 'skim-session-';
/** Names the store made: prefix, a 32-hex hash, and one of its suffixes (a temp file adds pid and random). */
const OWN_NAME = /^skim-session-[0-9a-f]{32}(?:\.json|\.lock|\.\d+-[0-9a-f]{16}\.tmp)$/;
const SESSION_NAME = /^skim-session-[0-9a-f]{32}\.json$/;

/** A session's file name: a hash, so any id is a safe name and ids are not readable from the listing. */
function sessionFile(dir: string, id: string): string {
  return join(dir, `${PREFIX}${createHash('sha256').update(id).digest('hex').slice(0, 32)}.json`);
}

/**
 * Make `dir` a store, or check that it is one: a new or empty folder gets the marker; a folder
 * with other content and no marker is refused (it is someone else's).
 */
async function claimStore(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const names = await readdir(dir);
  if (names.includes(STORE_MARKER)) return;
  if (names.length > 0) throw new Error(`${dir} is not empty and not a skim session store (no ${STORE_MARKER}): set SKIM_SESSION_DIR to a new or empty folder`);
  try {
    const fh = await open(join(dir, STORE_MARKER), 'wx', 0o600);
    await fh.writeFile('skim session store: skim reads, replaces and deletes only skim-session-* files here\n');
    await fh.close();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another call made it meanwhile
  }
}

/** Write `text` to `file` through a fresh temporary file in the same folder (exclusive, 0600), renamed into place. */
async function replaceFile(file: string, text: string): Promise<void> {
  const tmp = `${file.slice(0, -'.json'.length)}.${process.pid}-${randomBytes(8).toString('hex')}.tmp`;
  const fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** A session file's text; the file is opened without following a symlink. */
async function readSessionFile(file: string): Promise<string> {
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
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
    await claimStore(dir);
    if (!(await acquire(lock))) {
      onWarning(`session ${id}: another call held it for ${LOCK_WAIT_MS / 1000} s; this read is not remembered`);
      return null;
    }
  } catch (err) {
    onWarning(`session store not usable (${(err as Error).message}); this read is not remembered`);
    return null;
  }
  let memory: SessionMemory;
  try {
    const snapshot = JSON.parse(await readSessionFile(file)) as SessionSnapshot;
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
        await replaceFile(file, JSON.stringify(memory.snapshot()));
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

/**
 * Delete the store's own sessions unused for MAX_AGE_MS, and the least recently used beyond
 * MAX_SESSIONS (and temporary files a crashed call left, once as old). Other names are never touched.
 */
async function sweep(dir: string, keep: string): Promise<void> {
  const now = Date.now();
  const sessions: { path: string; mtime: number }[] = [];
  for (const name of await readdir(dir)) {
    if (!OWN_NAME.test(name)) continue;
    const path = join(dir, name);
    if (name.endsWith('.tmp')) {
      try {
        if (now - (await stat(path)).mtimeMs > MAX_AGE_MS) await rm(path, { force: true });
      } catch {
        // renamed or removed meanwhile
      }
      continue;
    }
    if (!SESSION_NAME.test(name)) continue;
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
