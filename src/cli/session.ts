/**
 * Session memory and the run's task for the read commands (`skim cat`, `skim grep`, `skim prune`):
 * `--session ID` / SKIM_SESSION names a session kept on disk (src/tools/sessionStore.ts), or in the
 * shared store SKIM_SESSION_STORE names (src/tools/sharedSession.ts),
 * `--task TEXT` / SKIM_TASK the run's overall task, SKIM_OUTPUT_LIMIT what the harness shows of a
 * long output. A shell recipe sets them once per run.
 */
import { SkimError } from '../core/errors.js';
import { fitCharsFor, limitAfter, OUTPUT_LIMIT_HELP, parseOutputLimit } from '../core/outputLimit.js';
import type { SessionMemory } from '../core/session/memory.js';
import { beginSessionRead } from '../tools/sharedSession.js';
import { cliIO, warn } from './io.js';
import { onEarlyExit } from './output.js';

export interface SessionFlags {
  session?: string;
  task?: string;
}

/**
 * Set by `skim run` in the environment of the command it runs: a skim command in there prints to
 * that `skim run`, which prunes the output and records what the agent is shown, so it uses no
 * session memory of its own (and `skim run` / `skim out` print their output whole).
 */
export const INSIDE_RUN_ENV = 'SKIM_INSIDE_RUN';

/** Does this skim command run inside a `skim run` (its output goes to that skim, not to the agent)? */
export function insideRun(env: NodeJS.ProcessEnv = cliIO().env): boolean {
  return env[INSIDE_RUN_ENV] === '1';
}

/** The task from --task or SKIM_TASK (empty means none). */
export function taskOf(flags: SessionFlags): string | undefined {
  const t = flags.task ?? cliIO().env.SKIM_TASK;
  return t && t.trim() !== '' ? t : undefined;
}

/** SKIM_OUTPUT_LIMIT, checked (a usage error names the accepted spellings); undefined when unset or empty. */
export function outputLimitOf(env: NodeJS.ProcessEnv = cliIO().env): string | undefined {
  const spec = env.SKIM_OUTPUT_LIMIT?.trim();
  if (!spec) return undefined;
  if (!parseOutputLimit(spec)) throw new SkimError(`SKIM_OUTPUT_LIMIT must be ${OUTPUT_LIMIT_HELP}, got "${spec}"`, 'EUSAGE');
  return spec;
}

/**
 * SKIM_OUTPUT_LIMIT as a command of this CLI counts what it printed as shown: the head the harness
 * keeps. A head+tail cut's tail is not counted on: skim's notes and warnings on stderr follow its
 * output in what the harness reads, and move the tail by what they say. Nothing of a `--json`
 * answer counts: it is not the text the limit measures.
 */
export function shownLimitOf(json = false, env: NodeJS.ProcessEnv = cliIO().env): string | undefined {
  const spec = outputLimitOf(env);
  if (spec === undefined) return undefined;
  return json ? 'head:0' : limitAfter(spec, 0);
}

/**
 * What a command of this CLI fits an answer of `length` characters to (the request's `fitChars`):
 * when the harness would cut it (SKIM_OUTPUT_LIMIT, counting what the command printed before,
 * `written`), what the limit shows whole less room for skim's warnings and what came before, shared
 * with the files still to print after it (`filesLeft`, this one included); else 0, no fitting.
 * Nothing for a `--json` answer, which a program reads whole.
 */
export function fitCharsOf(length: number, { json = false, written = 0, filesLeft = 1 } = {}, env: NodeJS.ProcessEnv = cliIO().env): number | undefined {
  const spec = outputLimitOf(env);
  if (spec === undefined || json) return undefined;
  return fitCharsFor(spec, length, { before: written, parts: filesLeft });
}

/**
 * Run `fn` with the named session's memory (or none when no session is named, or the store
 * cannot be used). When `fn` returns, its output was written whole: what it recorded is added to
 * the session. When it throws, or its output fails (EPIPE), the session forgets the files it
 * showed. A process killed meanwhile (SIGTERM while a write blocks on a full pipe, SIGKILL) holds
 * no lock; the read it left in progress makes the next read forget the session's memory.
 */
export async function withSession<T>(flags: SessionFlags, fn: (memory: SessionMemory | undefined) => Promise<T>): Promise<T> {
  const io = cliIO();
  const { env } = io;
  // Inside `skim run` this output goes to that skim, not to the agent: the outer one records what the agent is shown.
  if (insideRun(env)) return fn(undefined);
  const id = flags.session ?? env.SKIM_SESSION;
  const read = id && id.trim() !== '' ? await beginSessionRead(id, warn, env) : null;
  if (!read) return fn(undefined);
  const unregister = onEarlyExit(read.abort);
  try {
    const out = await fn(read.memory);
    if ((await io.delivered?.()) === false) await read.abort();
    else await read.commit();
    return out;
  } catch (err) {
    await read.abort();
    throw err;
  } finally {
    unregister();
  }
}
