/**
 * `skim show HANDLE[:a-b]`: print an output a session kept (whole, or lines a-b, 1-based
 * inclusive), byte for byte: what a marker such as `[skim: 212 lines of passed tests omitted
 * (15-226); skim show 3fa2c1d9e0:15-226]` stands for. The session is the one the output was
 * pruned in: on disk (--session / SKIM_SESSION), or on a `skim serve` (--server / SKIM_SERVER)
 * when the harness sends outputs there, then on disk (where `skim run` keeps them). Unknown
 * handle: exit 66; malformed spec: 64.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { findStoredOutput, type LineRange, parseHandleSpec, storedLines } from '../../core/output/stored.js';
import { CLIENT_KEY_HEADER } from '../../server/defaults.js';
import { beginSessionRead } from '../../tools/sharedSession.js';
import { action, cliIO, warn, writeOut } from '../io.js';

interface ShowFlags {
  session?: string;
  server?: string;
  client?: string;
}

export function registerShow(program: Command): void {
  program
    .command('show')
    .description('print a kept output, or lines a-b of it, as a marker names it: skim show HANDLE[:a-b]')
    .argument('<handle>', 'HANDLE or HANDLE:a-b, as the marker prints it')
    .option('--session <id>', 'the session the output was pruned in (default: $SKIM_SESSION)')
    .option('--server <url>', 'ask this skim serve for the session instead of the disk store (default: $SKIM_SERVER)')
    .option('--client <key>', "the server's client key the harness sends as X-Skim-Client (default: $SKIM_CLIENT)")
    .action(
      action(async (spec: string, flags: ShowFlags) => {
        const { handle, range } = parseHandleSpec(spec);
        const id = nonEmpty(flags.session) ?? nonEmpty(cliIO().env.SKIM_SESSION);
        if (!id) throw new SkimError('no session: name the one the output was kept in (--session ID or SKIM_SESSION)', 'EUSAGE');
        const server = nonEmpty(flags.server) ?? nonEmpty(cliIO().env.SKIM_SERVER);
        if (server) {
          // the server keeps sessions per client: the harness's X-Skim-Client, else its address
          const client = nonEmpty(flags.client) ?? nonEmpty(cliIO().env.SKIM_CLIENT);
          try {
            return writeOut(await fromServer(server, id, handle, range ? `${range.from}-${range.to}` : undefined, client));
          } catch (err) {
            // `skim run` and `skim out` in the agent's shell keep their outputs on disk, not on the
            // server: a handle the server does not have (or a server that does not answer) is
            // looked up there before the agent is told it is gone
            if (!(err instanceof SkimError) || err.code !== 'ENOINPUT') throw err;
            if (!(await fromDisk(id, handle, range, false))) throw err;
            return;
          }
        }
        await fromDisk(id, handle, range, true);
      }),
    );
}

/** Print the output from the disk store's session; false when it is not there and `must` is false (else missing input). */
async function fromDisk(id: string, handle: string, range: LineRange | undefined, must: boolean): Promise<boolean> {
  const read = await beginSessionRead(id, warn, cliIO().env);
  if (!read) {
    if (!must) return false;
    throw new SkimError(`session ${id}: the session store could not be read`, 'ENOINPUT');
  }
  try {
    if (!must && !read.memory.outputs.get(handle)) return false;
    const stored = findStoredOutput(read.memory.outputs, handle, `session ${id}`);
    const shown = storedLines(stored, range);
    await writeOut(shown.text, stored.encoding);
    // the bytes on stdout are the output's own: a range cut to its end is said on stderr
    if (range && shown.to < range.to) warn(`output ${handle} has ${shown.lines} lines: lines ${shown.from}-${shown.to} shown`);
    return true;
  } finally {
    await read.commit(); // it recorded nothing: this only ends the read
  }
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.trim() !== '' ? s : undefined;
}

/** GET /v1/outputs/HANDLE of a skim serve; its 404 is an unknown handle here too. */
async function fromServer(base: string, session: string, handle: string, lines?: string, client?: string): Promise<string> {
  const url = new URL(`v1/outputs/${encodeURIComponent(handle)}`, base.endsWith('/') ? base : `${base}/`);
  url.searchParams.set('session', session);
  if (lines) url.searchParams.set('lines', lines);
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(30_000), ...(client ? { headers: { [CLIENT_KEY_HEADER]: client } } : {}) });
  } catch (err) {
    throw new SkimError(`cannot reach skim serve at ${base}: ${(err as Error).message}`, 'ENOINPUT');
  }
  const body = (await res.json().catch(() => null)) as { text?: string; error?: { message?: string } } | null;
  if (res.ok && typeof body?.text === 'string') return body.text;
  const message = body?.error?.message ?? `HTTP ${res.status}`;
  throw new SkimError(message, res.status === 400 ? 'EUSAGE' : 'ENOINPUT');
}
