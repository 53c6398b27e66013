/**
 * The show_output tool: what a marker of a pruned command output omitted, e.g.
 * `[skim: 212 lines of passed tests omitted (15-226); skim show 3fa2c1d9e0:15-226]`. Outputs are
 * looked up in the connection's session, then in the disk session skim mcp was given
 * (`--session` / SKIM_SESSION), where `skim run` / `skim out` in the agent's shell keep them.
 */
import type { OutputMemory } from '../core/output/memory.js';
import { findStoredOutput, parseOutputRequest, storedLines } from '../core/output/stored.js';
import { beginRead } from '../tools/sessionStore.js';
import { beginSessionRead } from '../tools/sharedSession.js';

export interface ShowOutputArgs {
  /** HANDLE or HANDLE:a-b, as the marker prints it. */
  handle: string;
  /** "a-b": the lines to show (instead of a range in `handle`). */
  lines?: string;
}

export const SHOW_OUTPUT_DESCRIPTION =
  'Show lines a pruned command output left out. A marker such as ' +
  '"[skim: 212 lines of passed tests omitted (15-226); skim show 3fa2c1d9e0:15-226]" names the output\'s handle ' +
  '(3fa2c1d9e0) and the omitted lines (15-226): call show_output with handle="3fa2c1d9e0:15-226" (or handle and lines="15-226"); ' +
  'without a range the whole output is shown. Lines are numbered as the command printed them, 1-based. ' +
  'A marker ending in "not stored" cannot be expanded: run the command again.';

/** A disk session to look in, when one is named: its output memory for one lookup. */
export type DiskOutputs = (use: (outputs: OutputMemory | undefined) => string) => Promise<string>;

export function diskOutputs(id: string, log: (line: string) => void, env: NodeJS.ProcessEnv, dir?: string): DiskOutputs {
  return async (use) => {
    const warn = (msg: string) => log(`skim mcp: ${msg}`);
    const read = dir === undefined ? await beginSessionRead(id, warn, env) : await beginRead(id, warn, dir);
    if (!read) return use(undefined);
    try {
      return await use(read.memory.outputs);
    } finally {
      await read.commit(); // it recorded nothing: this only ends the read
    }
  };
}

export async function showOutputTool(session: OutputMemory, disk: { id: string; read: DiskOutputs } | undefined, args: ShowOutputArgs): Promise<string> {
  const { handle, range: lines } = parseOutputRequest(args.handle, args.lines);
  const show = (outputs: OutputMemory | undefined, where: string) => {
    const shown = storedLines(findStoredOutput(outputs, handle, where), lines);
    return `${shown.text}${shown.text.endsWith('\n') || shown.text === '' ? '' : '\n'}[skim: output ${handle}, lines ${shown.from}-${shown.to} of ${shown.lines}]\n`;
  };
  if (session.get(handle) || !disk) return show(session, 'this session');
  return disk.read((outputs) => show(outputs, `this session or session ${disk.id}`));
}
