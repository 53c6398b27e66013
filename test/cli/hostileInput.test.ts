/**
 * The `skim` command on hostile input (issue #20): text that looks like tokenizer control tokens,
 * special files (FIFOs), catastrophic regular expressions and unbounded stdin. Each answers
 * promptly with output or a one-line error and the README's exit code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-hostile-'));

function skim(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; timeout?: number } = {}) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: ROOT,
    input: typeof opts.input === 'string' ? Buffer.from(opts.input) : (opts.input ?? Buffer.alloc(0)),
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
    timeout: opts.timeout ?? 30_000,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

describe('special-token strings are text', () => {
  it('skim prune keeps them and exits 0', () => {
    const f = path.join(tmp, 't.py');
    writeFileSync(f, 'x = "<|endoftext|>"\n');
    const r = skim(['prune', f, '--query', 'x', '--ratio', '2', '--json']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).tokensIn).toBeGreaterThan(5);

    const body = Array.from({ length: 60 }, (_, i) => `v${i} = "<|im_start|>user <|endoftext|>"`).join('\n') + '\n';
    const whole = skim(['prune', '-', '--query', 'where is v7 set?', '--language', 'python'], { input: body });
    expect(whole.status).toBe(0);
    expect(whole.stdout).toContain('<|im_start|>');
  });

  it('a --batch line with them gets a result, not an error', () => {
    const batch = path.join(tmp, 'special.jsonl');
    const code = Array.from({ length: 60 }, (_, i) => `v${i} = "<|endoftext|>"`).join('\n') + '\n';
    writeFileSync(batch, JSON.stringify({ id: 's', code, query: 'where is v7 set?', ratio: 2 }) + '\n');
    const r = skim(['prune', '--batch', batch]);
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout.trim());
    expect(o.error).toBeUndefined();
    expect(o.id).toBe('s');
    expect(o.tokensOut).toBeLessThanOrEqual(Math.floor(o.tokensIn / 2));
  });
});
