/**
 * The one directory walk of skim's file tools (`skim grep`, the MCP grep tool, corpus listings):
 * sorted order, directories in SKIP_DIRS passed over, a directory loop walked once, and only
 * regular files yielded (FIFOs, sockets and devices met in a walk are skipped, as `grep -r` does).
 * How symbolic links met in the walk are treated is the caller's choice.
 */
import { type Dirent, promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Directories skipped when met in a walk: version-control internals, dependencies and caches
 * (named as an operand or a path, they are searched).
 */
export const SKIP_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv', '.tox', '.mypy_cache']);

export interface WalkEntry {
  /** Path of the file as met in the walk (under the walk's root). */
  abs: string;
  /** Its path below the walk's root, `/`-separated. */
  rel: string;
  /** Its name (last path component). */
  name: string;
  /** Real path of the file, when it was reached through a symbolic link. */
  real?: string;
}

/** A symbolic link met in the walk: its target's real path and whether it is a directory. */
export interface LinkTarget {
  real: string;
  isDirectory: boolean;
}

export interface WalkOptions {
  /**
   * Symbolic links met in the walk: 'skip' them (grep -r, the default), 'follow' every one (grep
   * -R), or follow those the predicate accepts.
   */
  links?: 'skip' | 'follow' | ((target: LinkTarget) => boolean);
  /** More directories to pass over, by name (SKIP_DIRS always are). */
  skipDir?: (name: string) => boolean;
  /** A directory that could not be read or an entry that could not be stat'ed (`rel`: '' for the root); default: passed over. */
  onError?: (rel: string, err: unknown) => void;
  /** A directory that is its own ancestor (a link loop): not walked again. */
  onLoop?: (rel: string) => void;
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The regular files below directory `root`, in sorted order. */
export async function* walkFiles(root: string, opts: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const links = opts.links ?? 'skip';
  const onError = opts.onError ?? (() => {});
  let rootKey: string;
  try {
    const st = await fs.stat(root);
    rootKey = `${st.dev}:${st.ino}`;
  } catch (err) {
    onError('', err);
    return;
  }
  const ancestors = new Set([rootKey]);

  async function* walk(dir: string, rel: string): AsyncGenerator<WalkEntry> {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      onError(rel, err);
      return;
    }
    entries.sort(byName);
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      let real: string | undefined;
      if (e.isSymbolicLink()) {
        if (links === 'skip') continue;
        try {
          const st = await fs.stat(abs);
          isDir = st.isDirectory();
          isFile = st.isFile();
          if (links !== 'follow') {
            real = await fs.realpath(abs);
            if (!links({ real, isDirectory: isDir })) continue;
          }
        } catch (err) {
          onError(childRel, err);
          continue;
        }
      }
      if (isDir) {
        if (SKIP_DIRS.has(e.name) || opts.skipDir?.(e.name)) continue;
        let key: string;
        try {
          const st = await fs.stat(abs);
          key = `${st.dev}:${st.ino}`;
        } catch (err) {
          onError(childRel, err);
          continue;
        }
        if (ancestors.has(key)) {
          opts.onLoop?.(childRel);
          continue;
        }
        ancestors.add(key);
        yield* walk(abs, childRel);
        ancestors.delete(key);
      } else if (isFile) {
        yield real === undefined ? { abs, rel: childRel, name: e.name } : { abs, rel: childRel, name: e.name, real };
      }
    }
  }
  yield* walk(root, '');
}
