/**
 * Session memory and the run's task for the read commands (`skim cat`, `skim grep`, `skim prune`):
 * `--session ID` / SKIM_SESSION names a session kept on disk (src/tools/sessionStore.ts),
 * `--task TEXT` / SKIM_TASK the run's overall task. A shell recipe sets both once per run.
 */
import type { SessionMemory } from '../core/session/memory.js';
import { openSession, sessionDir } from '../tools/sessionStore.js';
import { cliIO, warn } from './io.js';

export interface SessionFlags {
  session?: string;
  task?: string;
}

/** The task from --task or SKIM_TASK (empty means none). */
export function taskOf(flags: SessionFlags): string | undefined {
  const t = flags.task ?? cliIO().env.SKIM_TASK;
  return t && t.trim() !== '' ? t : undefined;
}

/**
 * Run `fn` with the named session's memory (or none when no session is named, or the store
 * cannot be used), then save what it recorded.
 */
export async function withSession<T>(flags: SessionFlags, fn: (memory: SessionMemory | undefined) => Promise<T>): Promise<T> {
  const { env } = cliIO();
  const id = flags.session ?? env.SKIM_SESSION;
  const open = id && id.trim() !== '' ? await openSession(id, warn, sessionDir(env)) : null;
  if (!open) return fn(undefined);
  try {
    const out = await fn(open.memory);
    await open.save();
    return out;
  } catch (err) {
    await open.release();
    throw err;
  }
}
