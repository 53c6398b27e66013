/**
 * Capturing a command's output as a harness sees it: stdout and stderr in the order written, the
 * exit status as a shell reports it, and bounds (a byte cap, a time limit) that hold whatever the
 * command does. Work is bounded by counting bytes, never by the clock.
 */

import { isUtf8 } from 'node:buffer';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { captureStream, runCaptured, TIMEOUT_STATUS } from '../../src/tools/capture.js';

const MiB = 1024 * 1024;
const opts = { maxBytes: MiB, timeoutMs: 60_000 };
const sh = (script: string) => ({ file: '/bin/sh', args: ['-c', script] });

describe('runCaptured', () => {
  it('merges stdout and stderr in the order the command wrote them', async () => {
    // alternating writes to the two streams: two pipes read side by side would group them
    const r = await runCaptured(sh('i=0; while [ $i -lt 200 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done'), opts);
    const expected = Array.from({ length: 200 }, (_, i) => `out ${i}\nerr ${i}\n`).join('');
    expect(r.output.toString()).toBe(expected);
    expect(r.status).toBe(0);
  });

  it('passes arguments as they are (no shell) and reports the exit code', async () => {
    const r = await runCaptured({ file: 'printf', args: ['%s|', 'a b', '$HOME', '*'] }, opts);
    expect(r.output.toString()).toBe('a b|$HOME|*|');
    const failed = await runCaptured(sh('echo no; exit 3'), opts);
    expect([failed.status, failed.exitCode, failed.output.toString()]).toEqual([3, 3, 'no\n']);
  });

  it('a signal n is exit status 128+n, as a shell reports it', async () => {
    const r = await runCaptured(sh('kill -KILL $$'), opts);
    expect([r.status, r.signal, r.exitCode]).toEqual([137, 'SIGKILL', null]);
  });

  it('a command that cannot start: 127 when not found, 126 when not executable', async () => {
    const missing = await runCaptured({ file: 'skim-no-such-command', args: [] }, opts);
    expect(missing.status).toBe(127);
    expect(missing.failure?.message).toBe('skim-no-such-command: command not found');
    const dir = mkdtempSync(join(tmpdir(), 'skim-capture-'));
    const file = join(dir, 'not-exec.sh');
    writeFileSync(file, 'echo hi\n');
    chmodSync(file, 0o644);
    const denied = await runCaptured({ file, args: [] }, opts);
    expect(denied.status).toBe(126);
    expect(denied.failure?.kind).toBe('not-executable');
  });

  it('1 GiB of output: the head and the tail are kept (whole lines), a note stands for the middle, every byte is counted, memory stays bounded', async () => {
    const gib = 1024 * MiB;
    const line = `${'x'.repeat(1023)}\n`;
    const script = `import sys\nblock = ${JSON.stringify(line)}.encode() * 1024\nfor _ in range(${gib / (1024 * 1024)}):\n    sys.stdout.buffer.write(block)\n`;
    const before = process.memoryUsage().rss;
    const r = await runCaptured({ file: 'python3', args: ['-c', script] }, { maxBytes: 3 * MiB + 100, timeoutMs: 0 });
    expect(r.bytesPrinted).toBe(gib);
    expect(r.capped).toBe(true);
    // head and tail of (3 MiB + 100 - 256) / 2 bytes each, cut to whole 1,024-byte lines: 1,535 lines each
    const kept = 2 * 1535 * 1024;
    expect(r.droppedBytes).toBe(gib - kept);
    const note = `[skim: ${gib - kept} bytes of output not kept here (over the ${3 * MiB + 100}-byte limit: its first and last lines are kept)]\n`;
    expect(r.output.length).toBe(kept + note.length);
    expect(r.output.length).toBeLessThanOrEqual(3 * MiB + 100);
    expect(r.output.subarray(1535 * 1024, 1535 * 1024 + note.length).toString()).toBe(note);
    expect(r.output.at(-1)).toBe(10);
    expect(r.status).toBe(0);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * MiB);
  }, 120_000);

  it('at the time limit the whole process group is stopped: exit 124, the output so far kept', async () => {
    // the background child would outlive a kill of the shell alone
    const r = await runCaptured(sh('sleep 300 & echo "child $!"; sleep 300'), { maxBytes: MiB, timeoutMs: 300, killGraceMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.status).toBe(TIMEOUT_STATUS);
    const pid = Number(/child (\d+)/.exec(r.output.toString())?.[1]);
    expect(pid).toBeGreaterThan(0);
    // gone, or a zombie (killed; not yet reaped where init does not reap)
    const running = () => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    let alive = running();
    for (let i = 0; i < 50 && alive; i++) {
      await new Promise((res) => setTimeout(res, 20));
      alive = running();
    }
    expect(alive).toBe(false);
  });
});

describe('captureStream', () => {
  it('keeps the head and the tail up to the cap, cut to whole lines, with a note between, and reads the rest to the end', async () => {
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.from(`line ${i} ${'y'.repeat(1000)}\n`));
    const total = chunks.reduce((n, c) => n + c.length, 0);
    const r = await captureStream(Readable.from(chunks), 10_000);
    expect(r.bytesPrinted).toBe(total);
    expect(r.capped).toBe(true);
    // (10,000 - 256) / 2 = 4,872 bytes each way: 4 whole lines of the head, 4 of the tail
    const head = chunks.slice(0, 4).join('');
    const tail = chunks.slice(60).join('');
    const dropped = total - head.length - tail.length;
    expect(r.droppedBytes).toBe(dropped);
    expect(r.output.toString()).toBe(
      `${head}[skim: ${dropped} bytes of output not kept here (over the 10000-byte limit: its first and last lines are kept)]\n${tail}`,
    );
    expect(r.output.length).toBeLessThanOrEqual(10_000);
    // at the cap and below it, all of it
    const all = await captureStream(Readable.from(chunks), total);
    expect([all.capped, all.output.length, all.droppedBytes]).toEqual([false, total, 0]);
    expect(all.output.toString()).toBe(chunks.join(''));
  });

  it('a tail that starts exactly at a line start keeps that line', async () => {
    // (10,000 - 256) / 2 = 4,872 bytes of tail: the last 8 lines of 609 bytes, whole
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.from(`${String(i).padStart(3, '0')} ${'t'.repeat(604)}\n`));
    const r = await captureStream(Readable.from(chunks), 10_000);
    expect(r.output.toString().endsWith(chunks.slice(56).join(''))).toBe(true);
    expect(r.droppedBytes).toBe(64 * 609 - 8 * 609 - 8 * 609);
  });

  it('a head without a line end keeps its bytes, and the note starts a line of its own', async () => {
    const r = await captureStream(Readable.from([Buffer.from('z'.repeat(5_000)), Buffer.from('\nend\n')]), 1_000);
    const text = r.output.toString();
    expect(text.startsWith(`${'z'.repeat(372)}\n[skim: `)).toBe(true);
    expect(text.endsWith(')]\nend\n')).toBe(true);
  });

  it('one long line is cut between UTF-8 characters, never inside one, so the output stays valid UTF-8', async () => {
    // 'a' then 3-byte characters: (1,000 - 256) / 2 = 372 bytes fall inside the 124th '€' each way
    for (const lead of ['a', 'ab', '']) {
      const input = Buffer.from(`${lead}${'€'.repeat(2_000)}`);
      const r = await captureStream(Readable.from([input]), 1_000);
      expect(isUtf8(r.output)).toBe(true);
      const [head, note, tail] = r.output.toString().split('\n');
      expect(`${head}${tail}`).toMatch(new RegExp(`^${lead}€+$`));
      expect(note).toMatch(/^\[skim: \d+ bytes of output not kept here/);
      expect(Buffer.byteLength(head) + Buffer.byteLength(tail) + r.droppedBytes).toBe(input.length);
    }
  });
});
