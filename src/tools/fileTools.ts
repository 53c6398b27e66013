/**
 * The rules every file tool follows, for the CLI (`skim prune`, `skim cat`, `skim grep`, `skim
 * rank`, `skim data`) and the MCP tools alike: one byte cap (MAX_INPUT_BYTES; regular files only,
 * ./readCapped.ts), one walk (./walk.ts), one binary check and one decoding policy for input that is
 * not valid UTF-8.
 */
import { isUtf8 } from 'node:buffer';
import { promises as fs } from 'node:fs';
import { SkimError } from '../core/errors.js';
import { MAX_INPUT_BYTES, readRegularFile } from './readCapped.js';
import { walkFiles } from './walk.js';

export { MAX_INPUT_BYTES };

export interface ReadOptions {
  /** 1-based first line to show (default 1). */
  offset?: number;
  /** Number of lines to show (default all). */
  limit?: number;
}

/**
 * A file's bytes, with a one-line SkimError for missing paths, directories, special files and
 * files over the cap; messages name the file as `name` (default: the path given). With `within`,
 * the file opened must be inside (its real path, checked on the open descriptor: 'EOUTSIDE').
 */
export function readFileBytes(file: string, name = file, within?: (real: string) => boolean): Promise<Buffer> {
  return readRegularFile(file, MAX_INPUT_BYTES, name, within);
}

/** Input bytes as text, and the encoding that gives the bytes back exactly. */
export interface DecodedText {
  text: string;
  encoding: 'utf8' | 'latin1';
  /** Set when the bytes are not valid UTF-8. */
  warning?: string;
}

export const NOT_UTF8_WARNING = 'not valid UTF-8: read as Latin-1, bytes kept as they are';

/**
 * The one decoding policy: UTF-8 when the bytes are valid UTF-8, else Latin-1 (one character per
 * byte, with a warning), so that every line kept or printed keeps its bytes exactly. A byte order
 * mark stays in the text: output that keeps line 1 keeps its bytes, like `cat`.
 */
export function decodeInput(buf: Uint8Array): DecodedText {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (isUtf8(bytes)) return { text: bytes.toString('utf8'), encoding: 'utf8' };
  return { text: bytes.toString('latin1'), encoding: 'latin1', warning: NOT_UTF8_WARNING };
}

/** A file's text under the decoding policy (decodeInput). */
export async function readTextFile(file: string): Promise<DecodedText> {
  return decodeInput(await readFileBytes(file));
}

/** The one binary check: a NUL byte anywhere (as GNU grep decides; text never has one). */
export function isBinary(buf: Uint8Array): boolean {
  return buf.includes(0);
}

/** `cat -n` style: the number right-aligned in 6 columns, a tab, the line. */
export function numberLine(n: number, text: string): string {
  return `${String(n).padStart(6)}\t${text}`;
}

/** The lines a windowed read shows (terminators kept), the file lines they are, and how many the text has. */
export interface LineWindow {
  lines: string[];
  /** File line numbers of the first and last line shown (last < first: none). */
  first: number;
  last: number;
  total: number;
}

/** The one windowed reader: the lines of `text` from `offset` (1-based), at most `limit` of them. */
export function lineWindow(text: string, opts: ReadOptions = {}): LineWindow {
  const all = text.split(/(?<=\n)/);
  const first = Math.max(1, opts.offset ?? 1);
  const last = opts.limit !== undefined ? Math.min(all.length, first - 1 + Math.max(0, opts.limit)) : all.length;
  return { lines: all.slice(first - 1, last), first, last, total: all.length };
}

/** Number lines like `cat -n` (numberLine), starting at `offset`. Keeps the file's line terminators. */
export function numberLines(text: string, opts: ReadOptions = {}): string {
  const window = lineWindow(text, opts);
  return window.lines.map((line, k) => numberLine(window.first + k, line)).join('');
}

/** Regular files under `roots` (files or directories), in the walk's order, filtered by glob. */
export async function listFiles(roots: string[], glob?: string): Promise<string[]> {
  // loaded on use: `skim cat` and `skim prune` read files through this module
  const picomatch = glob ? (await import('picomatch')).default : null;
  const isMatch = picomatch && glob ? picomatch(glob, { dot: true, basename: !glob.includes('/') }) : null;
  const out: string[] = [];
  for (const root of roots) {
    let stat;
    try {
      stat = await fs.stat(root);
    } catch {
      throw new SkimError(`no such file or directory: ${root}`, 'ENOINPUT');
    }
    if (!stat.isDirectory()) {
      out.push(root); // named: a FIFO or device is reported by the read
      continue;
    }
    for await (const f of walkFiles(root, { links: 'follow' })) if (!isMatch || isMatch(f.rel)) out.push(f.abs);
  }
  return out;
}
