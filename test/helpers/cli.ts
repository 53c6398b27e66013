/**
 * The `skim` command in tests. `runSkim` runs the program in this process with its own stdin,
 * stdout, stderr and environment (src/cli/io.ts, CliIO): the same modules, options, output and exit
 * code as the binary, without a process per case. `spawnSkim` runs the built binary (bin/skim.js,
 * dist/), for the few smoke tests that prove the real process works (pipes, signals, the bundle).
 */
import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { run } from '../../src/cli/cli.js';
import type { CliIO } from '../../src/cli/io.js';

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin/skim.js');

export interface SkimRun {
  status: number;
  stdout: string;
  stderr: string;
  /** stdout as bytes. */
  raw: Buffer;
}

export interface SkimRunOptions {
  /** stdin's content (a pipe); default empty. */
  input?: string | Buffer;
  /** 'none': stdin is /dev/null (not input, as for `stdio: 'ignore'`); 'tty': a terminal. */
  stdin?: 'pipe' | 'none' | 'tty';
  /** stdin as a stream of its own (a pipe), instead of `input`. */
  stdinStream?: Readable;
  /** Added to (or, as undefined, removed from) this process's environment. */
  env?: Record<string, string | undefined>;
}

/** A stream that keeps what is written to it. */
function sink(): { stream: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks) };
}

/** `skim ARGS...` in-process: its exit code, stdout and stderr. */
export async function runSkim(args: string[], opts: SkimRunOptions = {}): Promise<SkimRun> {
  const out = sink();
  const err = sink();
  const kind = opts.stdin ?? 'pipe';
  const stdin = Object.assign(opts.stdinStream ?? Readable.from(kind === 'pipe' ? [Buffer.from(opts.input ?? '')] : []), { isTTY: kind === 'tty' });
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const io: CliIO = { stdin, stdout: out.stream, stderr: err.stream, env, exitCode: undefined, stdinIsReadable: () => kind === 'pipe' };
  try {
    await run(['node', 'skim', ...args], io);
  } catch (e) {
    // what src/cli/entry.ts does with an error that escapes the program
    err.stream.write(`skim: internal error: ${(e as Error)?.message ?? String(e)}\n`);
    io.exitCode = 70;
  }
  const raw = out.bytes();
  return { status: Number(io.exitCode ?? 0), stdout: raw.toString('utf8'), stderr: err.bytes().toString('utf8'), raw };
}

/** `skim ARGS...` as a process, from the build (bin/skim.js): for smoke tests of the real binary. */
export function spawnSkim(args: string[], opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv } & Pick<SpawnSyncOptions, 'cwd' | 'timeout'> = {}) {
  if (!existsSync(path.join(ROOT, 'dist/cli/launch.js'))) throw new Error('dist/ is missing: run `npm run build` before the tests that run the binary');
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    input: opts.input ?? '',
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
    timeout: opts.timeout,
    env: opts.env ?? { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), raw: r.stdout };
}
