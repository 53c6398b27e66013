/**
 * The `skim` command on hostile input (issue #20): text that looks like tokenizer control tokens,
 * special files (FIFOs), input over the cap (a file or stdin) and catastrophic regular expressions. Each answers promptly with output or a
 * one-line error and the README's exit code.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

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

describe('special files named on the command line', () => {
  const fifo = path.join(tmp, 'pipe.py');
  const dir = path.join(tmp, 'tree');
  const ok = path.join(dir, 'ok.py');
  beforeAll(() => {
    mkdirSync(dir);
    writeFileSync(ok, 'def select_proxy():\n    return 1\n');
    execFileSync('mkfifo', [fifo]);
    execFileSync('mkfifo', [path.join(dir, 'inner.py')]);
  });

  it('skim cat reports a FIFO (exit 1) and prints the other files', () => {
    const r = skim(['cat', fifo, ok], { timeout: 15_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`skim cat: not a regular file (a FIFO): ${fifo}\n`);
    expect(r.stdout).toContain('def select_proxy');
  });

  it('skim grep reports a FIFO it was given (exit 2, as for a file grep cannot read) and skips one met in a walk', () => {
    const named = skim(['grep', '-n', 'select_proxy', fifo, ok], { timeout: 15_000 });
    expect(named.signal).toBeNull();
    expect(named.status).toBe(2);
    expect(named.stderr).toContain(`skim grep: not a regular file (a FIFO): ${fifo}`);
    expect(named.stdout).toContain('ok.py:1:def select_proxy');
    const walked = skim(['grep', '-n', 'select_proxy', dir], { timeout: 15_000 });
    expect(walked.signal).toBeNull();
    expect(walked.status).toBe(0);
    expect(walked.stderr).toBe('');
    expect(walked.stdout).toBe(`${ok}:1:def select_proxy():\n`);
  });

  it('skim prune refuses a FIFO with one line, exit 66', () => {
    const r = skim(['prune', fifo, '--query', 'x'], { timeout: 15_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(66);
    expect(r.stderr).toBe(`skim: not a regular file (a FIFO): ${fifo}\n`);
  });
});

describe('input over the cap', () => {
  it('stdin: reading stops at the cap, one line, exit 65 (the message a file gets)', () => {
    // 100 MB of "x = 1" lines, as in the issue (`yes "x = 1" | head -c 100M`); the cap is 64 MiB
    // (src/tools/readCapped.ts). skim exits before taking it all: writing the rest fails (EPIPE).
    const line = Buffer.from('x = 1\n');
    const input = Buffer.alloc(100_000_000);
    for (let i = 0; i < input.length; i += line.length) line.copy(input, i);
    const t0 = Date.now();
    const r = skim(['prune', '-', '--query', 'x'], { input });
    expect(r.status).toBe(65);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('skim: input too large (over the 64 MiB limit): stdin\n');
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('a file over it: one line, exit 65 (a sparse file: no 64 MiB written)', () => {
    const big = path.join(tmp, 'big.py');
    writeFileSync(big, '');
    truncateSync(big, 70 * 1024 * 1024);
    const r = skim(['prune', big, '--query', 'x']);
    expect(r.status).toBe(65);
    expect(r.stderr).toBe(`skim: input too large (over the 64 MiB limit): ${big}\n`);
  });
});

describe('skim grep with a catastrophic pattern', () => {
  it("answers at once: (a+)+$ against 100 a's and a b", () => {
    const f = path.join(tmp, 'evil.txt');
    writeFileSync(f, `${'a'.repeat(100)}b\n${'a'.repeat(30)}\n`);
    const t0 = Date.now();
    const r = skim(['grep', '-En', '(a+)+$', f], { timeout: 15_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`2:${'a'.repeat(30)}\n`);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const none = skim(['grep', '\\(a\\|aa\\)*c', f], { timeout: 15_000 });
    expect(none.status).toBe(1);
  });

  it('refuses lookahead with one line, exit 2', () => {
    const r = skim(['grep', '-P', 'a(?=b)', tmp]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^skim grep: lookahead assertions are not supported with -P: .*linear time.*\n$/);
  });
});
