/**
 * The workspace root the MCP tools are confined to. Every path an agent passes is checked twice:
 * lexically (absolute paths elsewhere, `..` escapes) and after resolving symlinks with realpath
 * (a link inside the root that points outside it); a file is then read through one descriptor
 * whose own path must still be inside (readFileBytes `within`), so a link swapped in between the
 * check and the open is refused too. A path that escapes is a SkimError 'EOUTSIDE'.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SkimError } from '../core/errors.js';

export interface ResolvedPath {
  /** Real absolute path (symlinks resolved). */
  abs: string;
  /** Path relative to the root, with `/` separators ("" for the root itself). */
  rel: string;
  isDirectory: boolean;
}

export class Workspace {
  private constructor(readonly root: string) {}

  /** Open a workspace at `dir` (its real path becomes the root). */
  static async open(dir: string): Promise<Workspace> {
    let root: string;
    try {
      root = await realpath(resolve(dir));
    } catch {
      throw new SkimError(`workspace root ${dir} does not exist`, 'ENOINPUT');
    }
    if (!(await stat(root)).isDirectory()) throw new SkimError(`workspace root ${dir} is not a directory`, 'ENOINPUT');
    return new Workspace(root);
  }

  /** True when `abs` is the root or lies under it. */
  contains(abs: string): boolean {
    const rel = relative(this.root, abs);
    return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
  }

  toRel(abs: string): string {
    return relative(this.root, abs).split(sep).join('/');
  }

  /** Resolve a path given by the agent (relative to the root, or absolute inside it). */
  async resolve(p: string): Promise<ResolvedPath> {
    if (p.includes('\0')) throw new SkimError('path contains a NUL byte', 'EUSAGE');
    const lexical = resolve(this.root, p === '' ? '.' : p);
    if (!this.contains(lexical)) {
      throw new SkimError(`access denied: ${p} is outside the workspace root ${this.root}`, 'EOUTSIDE');
    }
    const missing = () => new SkimError(`no such file or directory: ${p} (paths are relative to the workspace root ${this.root})`, 'ENOINPUT');
    const real = await realpath(lexical).catch(() => {
      throw missing();
    });
    if (!this.contains(real)) {
      throw new SkimError(`access denied: ${p} is a symlink that leads outside the workspace root`, 'EOUTSIDE');
    }
    const info = await stat(real).catch(() => {
      throw missing(); // gone since realpath
    });
    return { abs: real, rel: this.toRel(real), isDirectory: info.isDirectory() };
  }
}
