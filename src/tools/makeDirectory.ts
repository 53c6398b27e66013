/**
 * Create a directory and its missing parents, one level at a time. Node's `mkdir(dir, { recursive:
 * true })` never returns for a path under /proc (mkdir there fails with ENOENT while the parent
 * exists, and node retries forever); here every level is tried once, so a store directory that
 * cannot be made is a clear error at once.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SkimError } from '../core/errors.js';

/** Make `dir` (and missing parents) with `mode`; a SkimError 'ENOINPUT' naming the level that could not be made. */
export async function makeDirectory(dir: string, mode = 0o777): Promise<void> {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    const info = await stat(d).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' || err.code === 'ENOTDIR' ? null : Promise.reject(err)));
    if (info) {
      if (!info.isDirectory()) throw new SkimError(`cannot create ${dir}: ${d} is not a directory`, 'ENOINPUT');
      break;
    }
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      await mkdir(d, { mode });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && (await stat(d)).isDirectory()) continue; // made meanwhile
      throw new SkimError(`cannot create ${dir}: ${code ?? (err as Error).message} at ${d}`, 'ENOINPUT');
    }
  }
}
