/**
 * The CLI keeps the bytes it was given: a UTF-8 byte order mark survives `skim
 * prune` and `skim cat` (which matches `cat -n`), and input that is not valid UTF-8 reports its
 * real token count instead of 0.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSkim } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-bytes-'));
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The command in-process; stdout as bytes. */
async function skim(args: string[], input: Buffer = Buffer.alloc(0)) {
  const r = await runSkim(args, { input });
  return { status: r.status, stdout: r.raw, stderr: r.stderr };
}

describe('a UTF-8 byte order mark', () => {
  const small = path.join(tmp, 'bom.py');
  writeFileSync(small, Buffer.concat([BOM, Buffer.from('import os\n\n\ndef f():\n    return os.sep\n')]));
  const big = path.join(tmp, 'big-bom.py');
  const body = [
    'import os',
    '',
    ...Array.from({ length: 80 }, (_, i) => `def helper_${i}(x):\n    return x + ${i}\n`),
    'def target():',
    '    return os.sep',
    '',
  ].join('\n');
  writeFileSync(big, Buffer.concat([BOM, Buffer.from(body)]));

  it('skim prune returns a whole file byte for byte', async () => {
    const r = await skim(['prune', small, '--query', 'what does f return?']);
    expect(r.status).toBe(0);
    expect(r.stdout.equals(Buffer.concat([BOM, Buffer.from('import os\n\n\ndef f():\n    return os.sep\n')]))).toBe(true);
    // from stdin too
    const s = await skim(['prune', '-', '--query', 'what does f return?'], Buffer.concat([BOM, Buffer.from('x = 1\n')]));
    expect(s.stdout.equals(Buffer.concat([BOM, Buffer.from('x = 1\n')]))).toBe(true);
  });

  it('a pruned file keeps it on its kept first line', async () => {
    const r = await skim(['prune', big, '--query', 'what does target return, and where does os come from?', '--ratio', '4']);
    expect(r.status).toBe(0);
    expect(r.stdout.subarray(0, 3).equals(BOM)).toBe(true);
    expect(r.stdout.toString('utf8')).toContain('def target():');
  });

  it('skim cat prints what cat -n prints', async () => {
    const r = await skim(['cat', small]);
    expect(r.status).toBe(0);
    expect(r.stdout.equals(execFileSync('cat', ['-n', small]))).toBe(true);
  });
});

describe('input that is not valid UTF-8', () => {
  it('comes back unchanged, with its real token count', async () => {
    const f = path.join(tmp, 'latin1.py');
    writeFileSync(f, Buffer.concat([Buffer.from('def f():\n    return "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]));
    const r = await skim(['prune', f, '--query', 'what does f return?', '--json']);
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout.toString('utf8'));
    expect(o.kept).toEqual([[1, 2]]);
    expect(o.tokensIn).toBeGreaterThan(5);
    expect(o.tokensOut).toBe(o.tokensIn);
    expect(o.warnings.join('\n')).toMatch(/not valid UTF-8/);
  });
});
