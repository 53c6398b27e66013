/** The one directory walk: sorted, the skip list, loops walked once, regular files only, links as asked. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKIP_DIRS, type WalkOptions, walkFiles } from '../../src/tools/walk.js';

let root: string;
let outside: string;

beforeAll(() => {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'skim-walk-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  for (const d of ['b', 'a/c', 'node_modules/dep', '.git', 'build']) mkdirSync(path.join(root, d), { recursive: true });
  mkdirSync(outside);
  for (const f of ['z.py', 'b/y.py', 'a/x.py', 'a/c/w.py', 'node_modules/dep/index.js', '.git/HEAD', 'build/out.js']) writeFileSync(path.join(root, f), 'x\n');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
  symlinkSync(path.join(root, 'a'), path.join(root, 'a', 'c', 'loop')); // a directory loop
  symlinkSync(path.join(root, 'z.py'), path.join(root, 'link-in.py'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-out.txt'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
});
afterAll(() => rmSync(path.dirname(root), { recursive: true, force: true }));

async function rels(opts: WalkOptions = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const f of walkFiles(root, opts)) out.push(f.rel);
  return out;
}

describe('walkFiles', () => {
  it('yields regular files in sorted order, passing over SKIP_DIRS, links and FIFOs', async () => {
    expect(await rels()).toEqual(['a/c/w.py', 'a/x.py', 'b/y.py', 'build/out.js', 'z.py']);
    expect(SKIP_DIRS.has('node_modules') && SKIP_DIRS.has('.git')).toBe(true);
  });

  it('follows every link when asked, walking a loop once and saying so', async () => {
    const loops: string[] = [];
    const all = await rels({ links: 'follow', onLoop: (rel) => loops.push(rel) });
    expect(all).toEqual(['a/c/w.py', 'a/x.py', 'b/y.py', 'build/out.js', 'link-in.py', 'link-out.txt', 'z.py']);
    expect(loops).toEqual(['a/c/loop']);
  });

  it('follows the links a predicate accepts, giving their real path', async () => {
    const files: Array<{ rel: string; real?: string }> = [];
    for await (const f of walkFiles(root, { links: (t) => !t.isDirectory && t.real.startsWith(`${root}${path.sep}`) }))
      files.push({ rel: f.rel, real: f.real });
    expect(files.map((f) => f.rel)).toContain('link-in.py');
    expect(files.map((f) => f.rel)).not.toContain('link-out.txt');
    expect(files.find((f) => f.rel === 'link-in.py')?.real).toBe(path.join(root, 'z.py'));
  });

  it('passes over more directories by name, and reports what it cannot read', async () => {
    expect(await rels({ skipDir: (name) => name === 'build' || name === 'a' })).toEqual(['b/y.py', 'z.py']);
    const errors: string[] = [];
    for await (const f of walkFiles(path.join(root, 'missing'), { onError: (rel) => errors.push(rel) })) expect(f).toBeUndefined();
    expect(errors).toEqual(['']);
  });
});
