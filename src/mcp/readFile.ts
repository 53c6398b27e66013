/**
 * The read_file tool: a file under the workspace root, numbered like `cat -n`, optionally a
 * window of it (offset/limit), pruned to the lines that serve the agent's question. Files are
 * read as every file tool reads them (src/tools/fileTools.ts: the cap, the binary check, the
 * decoding policy); problems are SkimErrors the agent can act on.
 */
import { SkimError } from '../core/errors.js';
import { decodeInput, isBinary, lineWindow, numberLine, readFileBytes } from '../tools/fileTools.js';
import { focus, type PruneFn, type ToolContext } from './focus.js';
import type { Workspace } from './workspace.js';

export const DEFAULT_LIMIT = 2000;
/** Longer lines (minified code, data) are cut in the display. */
export const MAX_LINE_CHARS = 2000;

export interface ReadFileArgs {
  path: string;
  context_focus_question?: string;
  offset?: number;
  limit?: number;
  /** A range as a marker names it, "120-156" (instead of offset/limit). */
  lines?: string;
  /** Prune the file to at most this many characters. */
  max_chars?: number;
}

/** "120-156" (or "120") -> offset and limit; a clear error otherwise. */
export function parseLineRange(range: string): { offset: number; limit: number } {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(range);
  const a = m ? Number(m[1]) : NaN;
  const b = m?.[2] !== undefined ? Number(m[2]) : a;
  if (!m || a < 1 || b < a) throw new SkimError(`lines must be a range like "120-156" (first-last, 1-based), got "${range}"`, 'EUSAGE');
  return { offset: a, limit: b - a + 1 };
}

export async function readFileTool(ws: Workspace, prune: PruneFn, args: ReadFileArgs, tool: ToolContext = {}): Promise<string> {
  const target = await ws.resolve(args.path);
  if (target.isDirectory) {
    throw new SkimError(`${args.path} is a directory: use grep with path="${args.path}" to search it`, 'EISDIR');
  }
  const buf = await readFileBytes(target.abs, args.path, (real) => ws.contains(real));
  if (isBinary(buf)) throw new SkimError(`${args.path} is a binary file: not shown`, 'EUSAGE');
  if (buf.length === 0) return `(${target.rel} is empty)`;

  const { text, warning } = decodeInput(buf);
  const range = args.lines !== undefined ? parseLineRange(args.lines) : undefined;
  const offset = range?.offset ?? args.offset ?? 1;
  const { lines, first, last, total } = lineWindow(text, { offset, limit: range?.limit ?? args.limit ?? DEFAULT_LIMIT });
  if (offset > total) {
    throw new SkimError(`offset ${offset} is past the end of ${args.path} (${total} lines)`, 'EUSAGE');
  }
  // each line on a line of its own (`\n`), long lines cut for the agent's context
  const shown = lines.map((line, k) => {
    let text = line.replace(/\n$/, '').replace(/\r$/, '');
    if (text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS)} [... line cut at ${MAX_LINE_CHARS} characters]`;
    return numberLine(first + k, text);
  });
  const numbered = `${shown.join('\n')}\n`;

  const notes: string[] = warning ? [`[${target.rel}: ${warning}]`] : [];
  const out = await focus(prune, numbered, args.context_focus_question, {
    path: target.rel,
    notes,
    kind: 'read_file',
    remembers: tool.remembers,
    log: tool.log,
    maxChars: args.max_chars,
    window: args.lines !== undefined || args.offset !== undefined || args.limit !== undefined,
  });
  if (last < total || offset > 1) {
    const more = last < total ? `; call read_file with offset=${last + 1} to read on` : '';
    notes.push(`[${target.rel} has ${total} lines; this shows lines ${offset}-${last}${more}]`);
  }
  return notes.length ? `${out}${notes.join('\n')}\n` : out;
}
