/**
 * One read of a named session for the CLI, its daemon and `skim mcp`: in the shared store
 * SKIM_SESSION_STORE names (Redis, as `skim serve --session-store`), else on disk
 * (./sessionStore.ts). These sessions are one namespace in the shared store (LOCAL_CLIENT), apart
 * from the HTTP clients' sessions. A store that cannot be used costs only the memory: the read
 * goes on without it, with a warning.
 */
import { beginRead, canonicalPath, forgetShown, type SessionRead, sessionDir } from './sessionStore.js';

/** The client namespace of sessions named outside the server. */
export const LOCAL_CLIENT = 'local';

/** The shared store SKIM_SESSION_STORE names, connected (null, with a warning, when it cannot be used). */
async function openShared(url: string, env: NodeJS.ProcessEnv, onWarning: (msg: string) => void) {
  // loaded only when a shared store is named
  const { openRedisStore } = await import('../server/redisSessions.js');
  try {
    return await openRedisStore({ url, ...(env.SKIM_SESSION_PREFIX ? { prefix: env.SKIM_SESSION_PREFIX } : {}), connectTimeoutMs: 1000 });
  } catch (err) {
    onWarning(`session store unavailable (${(err as Error).message}): this read is not remembered`);
    return null;
  }
}

export async function beginSessionRead(id: string, onWarning: (msg: string) => void, env: NodeJS.ProcessEnv): Promise<SessionRead | null> {
  const url = env.SKIM_SESSION_STORE?.trim();
  if (!url) return beginRead(id, onWarning, sessionDir(env));
  const store = await openShared(url, env, onWarning);
  if (!store) return null;
  const read = await store.beginRead(id, LOCAL_CLIENT, onWarning, canonicalPath);
  // one connection per read: a process that reads once does not stay alive for it
  const closing = (end: () => Promise<void>) => async () => {
    try {
      await end();
    } finally {
      await store.close();
    }
  };
  return { memory: read.memory, commit: closing(read.commit), abort: closing(read.abort) };
}

/** Forget what session `id` was shown (of `path`, or all), where beginSessionRead keeps it; false (with a warning) when the store could not be used. */
export async function forgetSessionShown(id: string, path: string | undefined, onWarning: (msg: string) => void, env: NodeJS.ProcessEnv): Promise<boolean> {
  const url = env.SKIM_SESSION_STORE?.trim();
  if (!url) return forgetShown(id, path, onWarning, sessionDir(env));
  const store = await openShared(url, env, onWarning);
  if (!store) return false;
  try {
    const problem = await store.forget(id, LOCAL_CLIENT, path === undefined ? undefined : canonicalPath(path));
    if (problem) onWarning(problem);
    return problem === undefined;
  } finally {
    await store.close();
  }
}
