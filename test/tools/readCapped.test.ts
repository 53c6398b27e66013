/** The capped reader: regular files only, and the byte cap holds while reading (not only from stat). */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { SkimError } from '../../src/core/errors.js';
import { readRegularFile, readStreamCapped } from '../../src/tools/readCapped.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-read-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Reject instead of hanging the test run if a read blocks (then unblock a reader stuck in open). */
async function promptly<T>(p: Promise<T>, fifo?: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      if (fifo) {
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // no reader was waiting
        }
      }
      reject(new Error('read did not return within 3 s'));
    }, 3_000);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function errorOf(p: Promise<unknown>): Promise<SkimError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SkimError);
  return err as SkimError;
}

describe('readRegularFile', () => {
  it('reads a regular file whole, small or spanning several chunks', async () => {
    const small = path.join(tmp, 'small.txt');
    writeFileSync(small, 'hello\n');
    expect((await readRegularFile(small, 1024)).toString()).toBe('hello\n');
    const empty = path.join(tmp, 'empty.txt');
    writeFileSync(empty, '');
    expect((await readRegularFile(empty, 1024)).length).toBe(0);
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 'ab');
    const bigFile = path.join(tmp, 'big.txt');
    writeFileSync(bigFile, big);
    expect((await readRegularFile(bigFile, big.length)).equals(big)).toBe(true);
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = path.join(tmp, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const err = await promptly(errorOf(readRegularFile(fifo, 1024)), fifo);
    expect(err.code).toBe('ENOTFILE');
    expect(err.message).toBe(`not a regular file (a FIFO): ${fifo}`);
  });

  it.runIf(existsSync('/dev/zero'))('refuses a character device, whose stat size is 0 but which never ends', async () => {
    const err = await promptly(errorOf(readRegularFile('/dev/zero', 1024)));
    expect(err.code).toBe('ENOTFILE');
    expect(err.message).toMatch(/character device/);
  });

  it('names missing files, directories and files over the cap', async () => {
    expect((await errorOf(readRegularFile(path.join(tmp, 'nope'), 10))).code).toBe('ENOINPUT');
    expect((await errorOf(readRegularFile(tmp, 10))).code).toBe('EISDIR');
    const f = path.join(tmp, 'eleven.txt');
    writeFileSync(f, 'x'.repeat(11));
    const err = await errorOf(readRegularFile(f, 10, 'shown/name.txt'));
    expect(err.code).toBe('ETOOLARGE');
    expect(err.message).toBe('input too large (over the 10-byte limit): shown/name.txt');
    expect((await readRegularFile(f, 11)).length).toBe(11);
  });

  it.runIf(existsSync('/proc/self/maps'))('enforces the cap while reading, where stat says 0 bytes (procfs)', async () => {
    const err = await errorOf(readRegularFile('/proc/self/maps', 16));
    expect(err.code).toBe('ETOOLARGE');
  });
});

describe('readStreamCapped', () => {
  it('returns the whole stream under the cap', async () => {
    const buf = await readStreamCapped(Readable.from([Buffer.from('ab'), 'cd']), 4, 'stdin');
    expect(buf.toString()).toBe('abcd');
  });

  it('stops reading once the cap is passed', async () => {
    let produced = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          produced++;
          yield Buffer.alloc(1024, 'x');
        }
      })(),
    );
    const err = await errorOf(readStreamCapped(endless, 64 * 1024, 'stdin'));
    expect(err.code).toBe('ETOOLARGE');
    expect(err.message).toBe('input too large (over the 65536-byte limit): stdin');
    expect(produced).toBeLessThan(200);
  });
});
