/**
 * A throw-away workspace for the MCP tests: a long Python file, a small one, a binary file,
 * node_modules and .git content that must be skipped, and symlinks pointing inside and outside.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLE = fileURLToPath(new URL('../../examples/playground-http_session.py', import.meta.url));

export interface Fixture {
  base: string;
  root: string;
  outside: string;
  longLines: number;
  cleanup(): void;
}

export function makeWorkspace(): Fixture {
  const base = mkdtempSync(join(tmpdir(), 'skim-mcp-'));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'pkg'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  mkdirSync(join(root, '.git'), { recursive: true });
  mkdirSync(outside, { recursive: true });

  const long = readFileSync(EXAMPLE, 'utf8');
  writeFileSync(join(root, 'pkg', 'session.py'), long);
  writeFileSync(join(root, 'pkg', 'small.py'), 'def add(a, b):\n    return a + b\n');
  writeFileSync(join(root, 'pkg', 'data.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0, 0x70, 0x72, 0x6f, 0x78, 0x79]));
  writeFileSync(join(root, 'node_modules', 'dep', 'index.py'), 'select_proxy = 1\n');
  writeFileSync(join(root, '.git', 'config'), 'select_proxy = 1\n');
  writeFileSync(join(outside, 'secret.txt'), 'select_proxy secret\n');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'pkg', 'leak.txt'));
  symlinkSync(outside, join(root, 'outdir'));
  symlinkSync(join(root, 'pkg', 'small.py'), join(root, 'alias.py'));

  const longLines = long.split('\n').length - (long.endsWith('\n') ? 1 : 0);
  return { base, root, outside, longLines, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}
