/** The program's --verbose: debug messages on stderr (an internal error's stack), nothing else changes. */
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type CliIO, setVerbose, withCliIO } from '../../src/cli/io.js';
import { exitCodeOf } from '../../src/cli/program.js';
import { runSkim } from '../helpers/cli.js';

/** exitCodeOf on an internal error in a run with its own IO: what it wrote on stderr. */
async function internalError(verbose: boolean, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  const io: CliIO = { stdin: Readable.from([]), stdout: sink, stderr: sink, env };
  const code = await withCliIO(io, async () => {
    if (verbose) setVerbose();
    return exitCodeOf(new Error('boom'));
  });
  expect(code).toBe(70);
  return Buffer.concat(chunks).toString('utf8');
}

describe('--verbose', () => {
  it('adds the stack of an internal error; without it (or SKIM_DEBUG) one line', async () => {
    expect(await internalError(false)).toBe('skim: internal error: boom\n');
    expect(await internalError(true)).toMatch(/^skim: internal error: boom\nError: boom\n\s+at /);
    expect(await internalError(false, { SKIM_DEBUG: '1' })).toMatch(/^skim: internal error: boom\nError: boom\n\s+at /);
  });

  it('is a global option: the command runs as without it', async () => {
    const input = 'def f(x):\n    return x + 1\n\n\ndef g(y):\n    return y * 2\n';
    const plain = await runSkim(['prune', '--query', 'g', '--language', 'python', '--scorer', 'heuristic'], { input });
    const verbose = await runSkim(['--verbose', 'prune', '--query', 'g', '--language', 'python', '--scorer', 'heuristic'], { input });
    expect(plain.status).toBe(0);
    expect(verbose).toEqual(plain);
  });
});
