/**
 * The library as a package user loads it (README.md, "Library"): `import` from an ES module and
 * `require` from CommonJS, both through package.json's "exports" (the package names itself, so
 * no install is needed). Needs a built dist/, as the package does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const built = existsSync(path.join(ROOT, 'dist/index.js'));
const CODE = 'import time\\n\\ndef delay(attempt):\\n    return 0.5 * 2 ** attempt\\n';
const USE = `.prune({ code: '${CODE}', query: 'How is the retry delay computed?' }).then((r) => console.log(JSON.stringify(r.kept)))`;

function node(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
}

describe.skipIf(!built)('the package entry point', () => {
  it('loads with import from an ES module', () => {
    const r = node(['--input-type=module', '-e', `import * as skim from 'skim-pruner'; skim${USE}`]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([[1, 4]]);
  }, 60_000);

  it('loads with require from CommonJS', () => {
    const r = node(['--input-type=commonjs', '-e', `require('skim-pruner')${USE}`]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([[1, 4]]);
  }, 60_000);
});
