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
 *
 * A read (beginRead) loads the session and marks itself in progress; once its output reached the
 * agent it commits what it recorded (its changes, applied to the session as it is then, so
 * concurrent reads add up), or aborts (the session forgets the files it showed). A read left in
 * progress by a process that is gone makes the next update forget the session. The lock file
 * (created exclusively, holding the holder's pid) is held only to read and write the session
 * file; one whose holder is gone is broken at once, and a read waits for it at most LOCK_WAIT_MS.
 * Any problem with the store (unwritable or foreign directory, corrupt file, lock not obtained in
 * time) costs only the memory: the read itself is never lost.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, realpathSync } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type SessionLimits, SessionMemory, type SessionSnapshot } from '../core/session/memory.js';
import { makeDirectory } from './makeDirectory.js';

export const DISK_SESSION_LIMITS: SessionLimits = { maxFiles: 64, maxChars: 1_500_000 };
export const MAX_SESSIONS = 64;
export const MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** A lock is held for one read and write of a session file: one this old was left behind. */
const STALE_LOCK_MS = 10_000;
/** How long a read waits for the lock before it goes on without memory. */
const LOCK_WAIT_MS = 5_000;
/** A read still in progress after this long is taken as dead, whatever its pid. */
const PENDING_MAX_MS = 10 * 60 * 1000;

export function sessionDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKIM_SESSION_DIR) return env.SKIM_SESSION_DIR;
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'skim', 'sessions');
}

/** The file that makes a folder a skim session store. */
export const STORE_MARKER = '.skim-session-store';
const PREFIX = 'skim-session-';
/** Names the store made: prefix, a 32-hex hash, and one of its suffixes (a temp file adds pid and random). */
const OWN_NAME = /^skim-session-[0-9a-f]{32}(?:\.json|\.lock|\.stale|\.\d+-[0-9a-f]{16}\.tmp)$/;
const SESSION_NAME = /^skim-session-[0-9a-f]{32}\.json$/;

/**
 * The key a session remembers a file under: the path resolved against the working directory and
 * symlinks, so `a/x.py`, `../a/x.py` and a link to it are one file (as typed when it does not exist).
 */
export function canonicalPath(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync.native(abs);
  } catch {
    return abs;
  }
}

/** A session's file name: a hash, so any id is a safe name and ids are not readable from the listing. */
function sessionFile(dir: string, id: string): string {
  return join(dir, `${PREFIX}${createHash('sha256').update(id).digest('hex').slice(0, 32)}.json`);
}

/**
 * Make `dir` a store, or check that it is one: a new or empty folder gets the marker; a folder
 * with other content and no marker is refused (it is someone else's).
 */
async function claimStore(dir: string): Promise<void> {
  // one level at a time: a recursive mkdir never returns for a folder under /proc
  await makeDirectory(dir, 0o700);
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

/** A read in progress, between beginRead and commit/abort. */
export interface SessionRead {
  /**
   * The session as the read starts, to prune with. It is this read's own copy: what the read
   * records in it (SessionMemory.changes) is added to the session as it is at commit.
   */
  memory: SessionMemory;
  /** The read reached the agent whole: add what it recorded to the session. */
  commit(): Promise<void>;
  /** The read did not reach the agent whole (a failed or cut write, a signal): the session forgets the files it showed. */
  abort(): Promise<void>;
}

/** One read in progress, written into the session file while it runs: its process, and when it began. */
type Pending = [pid: number, token: string, startedAt: number];
type SessionFile = SessionSnapshot & { pending?: Pending[] };

/**
 * Begin one read of session `id`: load its memory and mark the read as in progress, so that if
 * the process dies before commit or abort (SIGKILL, a crash), the next read forgets what the
 * session held instead of trusting it. Returns null (with `onWarning`) when the store cannot be
 * used; the caller then prunes without memory.
 */
export async function beginRead(
  id: string,
  onWarning: (msg: string) => void,
  dir = sessionDir(),
  opts: { pid?: number; lockWaitMs?: number } = {},
): Promise<SessionRead | null> {
  const pid = opts.pid ?? process.pid;
  // (tests of many concurrent readers wait longer, so that the machine's load cannot decide them)
  const waitMs = opts.lockWaitMs ?? LOCK_WAIT_MS;
  const file = sessionFile(dir, id);
  const token = randomBytes(8).toString('hex');
  let snapshot: SessionSnapshot;
  try {
    await claimStore(dir);
    const got = await update(
      file,
      pid,
      (memory, pending) => {
        pending.push([pid, token, Date.now()]);
        return memory.snapshot();
      },
      waitMs,
    );
    if (got === null) {
      onWarning(`session ${id}: another call held it for ${waitMs / 1000} s; this read is not remembered, and the session forgets what it held`);
      await markStale(file);
      return null;
    }
    snapshot = got ?? { files: [] };
  } catch (err) {
    onWarning(`session store not usable (${(err as Error).message}); this read is not remembered`);
    return null;
  }
  const memory = SessionMemory.fromSnapshot(snapshot, DISK_SESSION_LIMITS, canonicalPath);
  // The first of commit/abort decides; a later call waits for it (an output failure can call
  // abort twice: from the failed write and from the process's error handler).
  let ended: Promise<void> | null = null;
  const end = (apply: (session: SessionMemory) => void, what: string) => (ended ??= finish(apply, what));
  const finish = async (apply: (session: SessionMemory) => void, what: string) => {
    try {
      const done = await update(
        file,
        pid,
        (session, pending) => {
          apply(session);
          const at = pending.findIndex((p) => p[1] === token);
          if (at !== -1) pending.splice(at, 1);
          return null;
        },
        waitMs,
      );
      if (done === undefined) await sweep(dir, file);
      else {
        onWarning(`session ${id}: another call held it for ${waitMs / 1000} s; the session forgets what it held`);
        await markStale(file);
      }
    } catch (err) {
      onWarning(`session store ${dir}: could not ${what} (${(err as Error).message})`);
      await markStale(file).catch(() => {});
    }
  };
  return {
    memory,
    commit: () => end((session) => session.applyChanges(memory.changes()), 'save'),
    abort: () =>
      end((session) => {
        const { files, forget } = memory.changes();
        for (const path of [...files.map((f) => f[0]), ...forget]) session.forget(path);
      }, 'save that this read was not shown'),
  };
}

/**
 * Forget what session `id` was shown of `path` (of every file without one): the agent's context
 * was compacted or cut, so nothing is folded until shown again. False (with `onWarning`) when the
 * store could not be used.
 */
export async function forgetShown(id: string, path: string | undefined, onWarning: (msg: string) => void, dir = sessionDir()): Promise<boolean> {
  const file = sessionFile(dir, id);
  try {
    await claimStore(dir);
    if ((await update(file, process.pid, (memory) => memory.forget(path))) === null) {
      await markStale(file); // the next read forgets all of it
      onWarning(`session ${id}: another call held it for ${LOCK_WAIT_MS / 1000} s; its next read forgets all it was shown`);
    }
    return true;
  } catch (err) {
    onWarning(`session store not usable (${(err as Error).message})`);
    return false;
  }
}

/**
 * Read, change and write session `file` under its lock: `change` gets the memory (after what
 * dead or interrupted reads leave behind is forgotten) and the reads in progress, and both are
 * written back. Resolves to what `change` returned (undefined for null), or null when the lock was
 * not obtained in time.
 */
async function update<T>(
  file: string,
  pid: number,
  change: (memory: SessionMemory, pending: Pending[]) => T | null,
  waitMs = LOCK_WAIT_MS,
): Promise<T | undefined | null> {
  const lock = file.replace(/\.json$/, '.lock');
  if (!(await acquire(lock, pid, waitMs))) return null;
  try {
    let stored: SessionFile = { files: [] };
    try {
      stored = JSON.parse(await readSessionFile(file)) as SessionFile;
    } catch {
      // new, expired or unreadable: start afresh
    }
    const memory = SessionMemory.fromSnapshot(stored, DISK_SESSION_LIMITS, canonicalPath);
    const now = Date.now();
    const pending = (stored.pending ?? []).filter((p) => now - p[2] < PENDING_MAX_MS && isAlive(p[0]));
    // A read that ended without saying whether it was shown (the process died), or one served
    // while the lock could not be had (the stale mark), may have shown any file: forget all.
    if (pending.length < (stored.pending?.length ?? 0) || (await takeStaleMark(file))) memory.forget();
    const out = change(memory, pending);
    await replaceFile(file, JSON.stringify({ ...memory.snapshot(), pending } satisfies SessionFile));
    return out ?? undefined;
  } finally {
    await releaseLock(lock, pid);
  }
}

/** The mark a read leaves when it could not record what it showed: the next update forgets the session's memory. */
const staleMark = (file: string) => file.replace(/\.json$/, '.stale');

async function markStale(file: string): Promise<void> {
  try {
    const fh = await open(staleMark(file), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    await fh.close();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

async function takeStaleMark(file: string): Promise<boolean> {
  try {
    await rm(staleMark(file));
    return true;
  } catch {
    return false;
  }
}

/** Is process `pid` still running (on this machine)? */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Take the lock (a file created exclusively, holding the holder's pid). A lock whose holder is
 * gone, or older than STALE_LOCK_MS (holders keep it for one read and write of the session file),
 * is broken; gives up after `waitMs`.
 */
async function acquire(lock: string, pid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      const fh = await open(lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      await fh.writeFile(String(pid));
      await fh.close();
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      const holder = Number(await readFile(lock, 'utf8'));
      const stale = Date.now() - (await stat(lock)).mtimeMs > STALE_LOCK_MS;
      // (an empty file is a holder between creating and writing it: not stale unless old)
      if (stale || (holder > 0 && !isAlive(holder))) await rm(lock, { force: true });
    } catch {
      // the holder just released it: try again
    }
    if (Date.now() > deadline) return false;
    // a random part of the backoff: waiters that began together would otherwise all try again
    // at once, one of them win, and the rest sleep a whole backoff again (one handoff per 50 ms)
    await new Promise((r) => setTimeout(r, 1 + Math.random() * wait));
  }
}

async function releaseLock(lock: string, pid: number): Promise<void> {
  try {
    if (Number(await readFile(lock, 'utf8')) === pid) await rm(lock, { force: true });
  } catch {
    // already gone
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
