/**
 * The `skim` command on hostile input: text that looks like tokenizer control tokens,
 * special files (FIFOs), input over the cap (a file or stdin) and catastrophic regular expressions. Each answers promptly with output or a
 * one-line error and the README's exit code. The commands run in-process (test/helpers/cli.ts):
 * "promptly" is a bound on what is read (bytes of stdin) and on how a pattern is matched (no
 * backtracking RegExp sees the hostile line), not a clock.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSkim, type SkimRunOptions } from '../helpers/cli.js';
import { countMatchWorkAsync } from '../helpers/work.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-hostile-'));

const skim = (args: string[], opts: SkimRunOptions = {}) => runSkim(args, opts);

describe('special-token strings are text', () => {
  it('skim prune keeps them and exits 0', async () => {
    const f = path.join(tmp, 't.py');
    writeFileSync(f, 'x = "<|endoftext|>"\n');
    const r = await skim(['prune', f, '--query', 'x', '--ratio', '2', '--json']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).tokensIn).toBeGreaterThan(5);

    const body = Array.from({ length: 60 }, (_, i) => `v${i} = "<|im_start|>user <|endoftext|>"`).join('\n') + '\n';
    const whole = await skim(['prune', '-', '--query', 'where is v7 set?', '--language', 'python'], { input: body });
    expect(whole.status).toBe(0);
    expect(whole.stdout).toContain('<|im_start|>');
  });

  it('a --batch line with them gets a result, not an error', async () => {
    const batch = path.join(tmp, 'special.jsonl');
    const code = Array.from({ length: 60 }, (_, i) => `v${i} = "<|endoftext|>"`).join('\n') + '\n';
    writeFileSync(batch, JSON.stringify({ id: 's', code, query: 'where is v7 set?', ratio: 2 }) + '\n');
    const r = await skim(['prune', '--batch', batch]);
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

  it('skim cat reports a FIFO (exit 1) and prints the other files', async () => {
    const r = await skim(['cat', fifo, ok]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`skim cat: not a regular file (a FIFO): ${fifo}\n`);
    expect(r.stdout).toContain('def select_proxy');
  });

  it('skim grep reports a FIFO it was given (exit 2, as for a file grep cannot read) and skips one met in a walk', async () => {
    const named = await skim(['grep', '-n', 'select_proxy', fifo, ok]);
    expect(named.status).toBe(2);
    expect(named.stderr).toContain(`skim grep: not a regular file (a FIFO): ${fifo}`);
    expect(named.stdout).toContain('ok.py:1:def select_proxy');
    const walked = await skim(['grep', '-n', 'select_proxy', dir]);
    expect(walked.status).toBe(0);
    expect(walked.stderr).toBe('');
    expect(walked.stdout).toBe(`${ok}:1:def select_proxy():\n`);
  });

  it('skim prune refuses a FIFO with one line, exit 66', async () => {
    const r = await skim(['prune', fifo, '--query', 'x']);
    expect(r.status).toBe(66);
    expect(r.stderr).toBe(`skim: not a regular file (a FIFO): ${fifo}\n`);
  });
});

describe('input over the cap', () => {
  it('stdin: reading stops at the cap, one line, exit 65 (the message a file gets)', async () => {
    // 100 MB of "x = 1" lines (`yes "x = 1" | head -c 100M`), in 64 KiB chunks as
    // a pipe gives them; the cap is 64 MiB (src/tools/readCapped.ts). skim stops reading just past it.
    const CHUNK = 64 * 1024;
    const chunk = Buffer.from('x = 1\n'.repeat(Math.ceil(CHUNK / 6)).slice(0, CHUNK));
    let read = 0;
    const stdin = Readable.from(
      (function* () {
        for (; read < 100_000_000; read += CHUNK) yield chunk;
      })(),
    );
    const r = await skim(['prune', '-', '--query', 'x'], { stdinStream: stdin });
    expect(r.status).toBe(65);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('skim: input too large (over the 64 MiB limit): stdin\n');
    // what was pulled from the pipe: the cap and the chunk that crossed it, plus the stream's read-ahead
    expect(read).toBeLessThanOrEqual(64 * 1024 * 1024 + 4 * CHUNK);
  });

  it('a file over it: one line, exit 65 (a sparse file: no 64 MiB written)', async () => {
    const big = path.join(tmp, 'big.py');
    writeFileSync(big, '');
    truncateSync(big, 70 * 1024 * 1024);
    const r = await skim(['prune', big, '--query', 'x']);
    expect(r.status).toBe(65);
    expect(r.stderr).toBe(`skim: input too large (over the 64 MiB limit): ${big}\n`);
  });
});

describe('skim grep with a catastrophic pattern', () => {
  it("answers at once: (a+)+$ against 100 a's and a b, no backtracking RegExp seeing that line", async () => {
    const f = path.join(tmp, 'evil.txt');
    writeFileSync(f, `${'a'.repeat(100)}b\n${'a'.repeat(30)}\n`);
    // a JavaScript RegExp of the pattern on that line would never return: the guard throws instead
    const line = `${'a'.repeat(100)}b`;
    const { value: r } = await countMatchWorkAsync(() => skim(['grep', '-En', '(a+)+$', f]), { line, source: (s) => s.includes('a+)+') });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`2:${'a'.repeat(30)}\n`);
    const { value: none } = await countMatchWorkAsync(() => skim(['grep', '\\(a\\|aa\\)*c', f]), { line, source: (s) => s.includes('aa)*') });
    expect(none.status).toBe(1);
  });

  it('refuses lookahead with one line, exit 2', async () => {
    const r = await skim(['grep', '-P', 'a(?=b)', tmp]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^skim grep: lookahead assertions are not supported with -P: .*linear time.*\n$/);
  });
});
