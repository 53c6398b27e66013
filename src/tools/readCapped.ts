/**
 * The one way skim reads a file or stream someone named (CLI input, `skim cat`/`skim grep`, the
 * MCP tools): regular files only, and never more than a byte cap. A FIFO blocks a read until a
 * writer comes (forever, for an agent's tool call), and a character device such as /dev/zero
 * never ends while its stat size says 0: so the file type is checked before the file is opened,
 * and the cap is enforced while reading rather than taken from stat.
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { SkimError } from '../core/errors.js';

/** The hard limit on one input (a file, stdin) to the CLI. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** Open flags: should the path have become a FIFO since the stat, open must not wait for a writer. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const MIN_CHUNK = 64 * 1024;
const MAX_CHUNK = 8 * 1024 * 1024;

/** "64 MiB" for whole mebibytes, else "1000-byte": for "over the ... limit". */
export function formatLimit(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes}-byte`;
}

/** The one message for an input over its cap, whether stat told us or the read did. */
function tooLarge(name: string, maxBytes: number): SkimError {
  return new SkimError(`input too large (over the ${formatLimit(maxBytes)} limit): ${name}`, 'ETOOLARGE');
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a file';
}

function checkRegular(info: Stats, file: string): void {
  if (info.isDirectory()) throw new SkimError(`is a directory: ${file}`, 'EISDIR');
  if (!info.isFile()) throw new SkimError(`not a regular file (${kindOf(info)}): ${file}`, 'ENOTFILE');
}

/**
 * Where the file open on `fh` really is: on Linux the descriptor's own path (/proc/self/fd),
 * whatever links or renames happened on the way; elsewhere the real path of `file`, when it is
 * still the file that was opened (same device and inode), else null.
 */
async function openedPath(fh: FileHandle, file: string): Promise<string | null> {
  try {
    return await fs.readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    try {
      const real = await fs.realpath(file);
      const [opened, there] = await Promise.all([fh.stat(), fs.stat(real)]);
      return opened.dev === there.dev && opened.ino === there.ino ? real : null;
    } catch {
      return null;
    }
  }
}

/**
 * A regular file's bytes, at most `maxBytes` of them. SkimError: ENOINPUT (missing, unreadable),
 * EISDIR, ENOTFILE (FIFO, socket, device), ETOOLARGE (over the cap), EOUTSIDE (with `within`: the
 * file opened is not inside, e.g. a link swapped in after a path was checked); messages name the
 * file as `name` (default: the path given). Everything is read through the one descriptor checked.
 */
export async function readRegularFile(file: string, maxBytes: number, name = file, within?: (real: string) => boolean): Promise<Buffer> {
  let info: Stats;
  try {
    info = await fs.stat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SkimError(code === 'ENOENT' || code === 'ENOTDIR' ? `no such file: ${name}` : `cannot read ${name}: ${code ?? 'error'}`, 'ENOINPUT');
  }
  checkRegular(info, name);
  if (info.size > maxBytes) throw tooLarge(name, maxBytes);
  let fh: FileHandle;
  try {
    fh = await fs.open(file, OPEN_FLAGS);
  } catch (err) {
    throw new SkimError(`cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, 'ENOINPUT');
  }
  try {
    if (within) {
      const where = await openedPath(fh, file);
      if (where === null || !within(where)) throw new SkimError(`access denied: ${name} leads outside the workspace root`, 'EOUTSIDE');
    }
    const opened = await fh.stat();
    checkRegular(opened, name);
    // Usually one read of the whole file plus one that finds the end; files that grow (or
    // whose stat size is wrong) are read on in chunks up to the cap.
    const chunkSize = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, opened.size + 1));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(chunkSize, maxBytes + 1 - total));
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(name, maxBytes);
      chunks.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
    }
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
  } finally {
    await fh.close();
  }
}

/** All of a stream (stdin), at most `maxBytes`: reading stops as soon as the cap is passed. */
export async function readStreamCapped(stream: AsyncIterable<Buffer | string>, maxBytes: number, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of stream) {
    const buf = typeof c === 'string' ? Buffer.from(c) : c;
    total += buf.length;
    // leaving the loop destroys the stream: the writer gets EPIPE instead of filling our heap
    if (total > maxBytes) throw tooLarge(name, maxBytes);
    chunks.push(buf);
  }
  return Buffer.concat(chunks, total);
}
