/**
 * The read tools agents call, implemented in-process (no shell): numbered reads like `cat -n`
 * and the file listing of a directory tree. Shared by the CLI (`skim cat`, `skim data`) and the
 * MCP server, which adds a workspace-root check on top. (`skim grep` is src/tools/grepSearch.ts.)
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SkimError } from '../core/errors.js';
import { MAX_INPUT_BYTES, readRegularFile } from './readCapped.js';

/** Directories nobody wants listed. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn', '__pycache__', '.venv', 'venv', 'dist', 'build', '.tox', '.mypy_cache', 'target']);
/** listFiles skips larger files. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface ReadOptions {
  /** 1-based first line to show (default 1). */
  offset?: number;
  /** Number of lines to show (default all). */
  limit?: number;
}

/** Read a file's bytes, with a one-line SkimError for missing paths, directories, special files and huge files. */
export function readFileBytes(file: string): Promise<Buffer> {
  return readRegularFile(file, MAX_INPUT_BYTES);
}

/**
 * A file's text and the encoding that gives its bytes back exactly: UTF-8 when it is valid UTF-8,
 * else Latin-1 (one character per byte), so a `cat` of a file with a stray byte stays byte-exact.
 */
export async function readTextFileExact(file: string): Promise<{ text: string; encoding: 'utf8' | 'latin1' }> {
  const buf = await readFileBytes(file);
  return isValidUtf8(buf) ? { text: decodeText(buf), encoding: 'utf8' } : { text: Buffer.from(buf).toString('latin1'), encoding: 'latin1' };
}

/**
 * UTF-8 decode; invalid sequences become U+FFFD (callers that must keep bytes check isValidUtf8).
 * A byte order mark stays in the text: output that keeps line 1 keeps its bytes, like `cat`.
 */
export function decodeText(buf: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(buf);
}

export function isValidUtf8(buf: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch {
    return false;
  }
}

/** Number lines like `cat -n` (`%6d\t`), starting at `offset`. Keeps the file's line terminators. */
export function numberLines(text: string, opts: ReadOptions = {}): string {
  const offset = Math.max(1, opts.offset ?? 1);
  const lines = text.split(/(?<=\n)/);
  const end = opts.limit !== undefined ? Math.min(lines.length, offset - 1 + Math.max(0, opts.limit)) : lines.length;
  let out = '';
  for (let i = offset - 1; i < end; i++) out += `${String(i + 1).padStart(6)}\t${lines[i]}`;
  return out;
}

/** Files under `roots` (files or directories) in a stable order, filtered by glob. */
export async function listFiles(roots: string[], glob?: string): Promise<string[]> {
  // loaded on use: `skim cat` and `skim prune` read files through this module
  const picomatch = glob ? (await import('picomatch')).default : null;
  const isMatch = picomatch && glob ? picomatch(glob, { dot: true, basename: !glob.includes('/') }) : null;
  const out: string[] = [];
  const seenDirs = new Set<string>(); // real paths: symlinked directory loops are walked once
  const walk = async (p: string, rel: string, explicit: boolean) => {
    let stat;
    try {
      stat = await fs.stat(p);
    } catch {
      if (explicit) throw new SkimError(`no such file or directory: ${p}`, 'ENOINPUT');
      return;
    }
    if (stat.isDirectory()) {
      if (!explicit && SKIP_DIRS.has(path.basename(p))) return;
      const real = await fs.realpath(p).catch(() => p);
      if (seenDirs.has(real)) return;
      seenDirs.add(real);
      const entries = (await fs.readdir(p)).sort();
      for (const e of entries) await walk(path.join(p, e), rel ? `${rel}/${e}` : e, false);
    } else if (stat.isFile()) {
      if (!explicit && isMatch && !isMatch(rel)) return;
      if (stat.size > MAX_FILE_BYTES) return;
      out.push(p);
    } else if (explicit) {
      out.push(p); // a FIFO or device named on the command line: the read reports it
    } // (met in a walk: skipped, as grep -r does)
  };
  for (const r of roots) await walk(r, '', true);
  return out;
}
