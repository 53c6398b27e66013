import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { alignKept, repomixCompress } from '../../src/bench/methods/repomix.js';

const PY = 'import os\n\n# comment\ndef foo(a, b):\n    """doc"""\n    x = a + b\n    return x\n\nclass A:\n    def m(self):\n        return 1\n';
const GO = 'package main\n\nimport "fmt"\n\n// Hello says hi\nfunc Hello(name string) string {\n\treturn fmt.Sprintf("hi %s", name)\n}\n';
const KT = 'fun main() {\n    println("x")\n}\n';

describe('repomix peer', () => {
  it('maps its output lines back onto the input lines they came from', () => {
    const keep = alignKept(PY.split('\n').slice(0, -1), '# comment\ndef foo(a, b)\n⋮----\n"""doc"""\nclass A\n⋮----\ndef m(self)');
    expect([...keep]).toEqual([0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0]);
  });

  it('gives the same per-file output as the repomix --compress CLI', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'skim-rmx-'));
    try {
      const files: Record<string, string> = { 'a.py': PY, 'b.go': GO, 'c.kt': KT };
      for (const [p, c] of Object.entries(files)) await writeFile(join(dir, p), c);
      // The package's main is lib/index.js; its bin sits next to lib/.
      const bin = join(dirname(createRequire(import.meta.url).resolve('repomix')), '..', 'bin', 'repomix.cjs');
      const out = join(dir, 'out.xml');
      await promisify(execFile)(
        process.execPath,
        [
          bin,
          '--compress',
          '--style',
          'xml',
          '--no-file-summary',
          '--no-directory-structure',
          '--no-security-check',
          '--no-git-sort-by-changes',
          '--quiet',
          '-o',
          out,
          '--include',
          'a.py,b.go,c.kt',
          '.',
        ],
        { cwd: dir },
      );
      const xml = await readFile(out, 'utf8');
      for (const [p, c] of Object.entries(files)) {
        const m = new RegExp(`<file path="${p.replace('.', '\\.')}">\\n([\\s\\S]*?)\\n</file>`).exec(xml);
        expect(m, p).not.toBeNull();
        expect(await repomixCompress(c, p)).toBe(m![1]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
