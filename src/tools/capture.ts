/**
 * Capture a command's output for pruning, bounded: run it (runCaptured) or read what was piped in
 * (captureStream).
 *
 * Run a command the way an agent harness does (`subprocess.run(..., stdout=PIPE, stderr=STDOUT)`):
 * stdout and stderr go to one stream, so they arrive in the order the command wrote them, not
 * reordered by two pipes racing. Node has no pipe() or socketpair(): the one stream is a Unix
 * socket, connected to a listener in a private temporary folder, handed to the child as its fd 1
 * and 2. The command runs in its own process group, so a timeout kills everything it started.
 *
 * Bounded: at most `maxBytes` of output are kept (the head, cut back to a line end); the rest is
 * read and counted, never held, so memory stays bounded whatever the command prints. A command
 * still running at `timeoutMs` gets SIGTERM (its group), SIGKILL a second later.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CommandSpec {
  /** The program to run (looked up on PATH) and its arguments, passed as they are (no shell). */
  file: string;
  args: string[];
}

export interface RunOptions {
  /** Output bytes kept; beyond them output is counted and dropped. */
  maxBytes: number;
  /** Time limit in ms (0 = none). */
  timeoutMs: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Grace between SIGTERM and SIGKILL at the time limit (default 1000 ms). */
  killGraceMs?: number;
}

export interface RunOutcome {
  /** The command could not be started: `not-found` (exit 127, like a shell) or `not-executable` (126). */
  failure?: { kind: 'not-found' | 'not-executable'; message: string };
  /** What the command printed, stdout and stderr merged in order (at most maxBytes of it). */
  output: Buffer;
  /** Bytes the command printed in all (more than output.length when capped). */
  bytesPrinted: number;
  capped: boolean;
  timedOut: boolean;
  /** The command's exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The status to exit with: the command's code, 128+n for signal n, 124 at the time limit (as `timeout`), 127/126 when it could not start. */
  status: number;
}

/** Exit status of a time limit, as coreutils' `timeout` reports it. */
export const TIMEOUT_STATUS = 124;
const NOT_FOUND_STATUS = 127;
const NOT_EXECUTABLE_STATUS = 126;

/** Signals forwarded to the command's group while it runs (skim itself being stopped). */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function runCaptured(spec: CommandSpec, opts: RunOptions): Promise<RunOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'skim-run-'));
  try {
    const { ours, theirs } = await socketPair(join(dir, 's'));
    try {
      return await runWith(spec, opts, ours, theirs);
    } finally {
      ours.destroy();
      theirs.destroy();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Two connected ends of a Unix socket: `theirs` becomes the child's stdout and stderr. */
function socketPair(path: string): Promise<{ ours: Socket; theirs: Socket }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.once('connection', (theirs) => {
      server.close();
      resolve({ ours, theirs });
    });
    let ours: Socket;
    server.listen(path, () => {
      ours = new Socket();
      ours.once('error', reject);
      ours.connect(path);
    });
  });
}

function runWith(spec: CommandSpec, opts: RunOptions, ours: Socket, theirs: Socket): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let printed = 0;
    let timedOut = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let ended = false;
    let done = false;

    const child = spawn(spec.file, spec.args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['inherit', theirs, theirs],
      detached: true, // its own process group: the time limit kills all of it
    });
    // the child has its copy of our socket's other end; ours must not keep it open
    theirs.destroy();

    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const forward = (signal: NodeJS.Signals) => killGroup(signal);
    for (const s of FORWARDED) process.on(s, forward);

    let killTimer: NodeJS.Timeout | undefined;
    let giveUpTimer: NodeJS.Timeout | undefined;
    const grace = opts.killGraceMs ?? 1000;
    const limitTimer =
      opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            killGroup('SIGTERM');
            killTimer = setTimeout(() => killGroup('SIGKILL'), grace);
            // a process that left the group may hold the socket open: stop waiting for it
            giveUpTimer = setTimeout(() => {
              ended = true;
              finish();
            }, grace * 2);
          }, opts.timeoutMs)
        : undefined;

    const finish = (failure?: RunOutcome['failure']) => {
      if (done || (!failure && (!exited || !ended))) return;
      done = true;
      clearTimeout(limitTimer);
      clearTimeout(killTimer);
      clearTimeout(giveUpTimer);
      for (const s of FORWARDED) process.off(s, forward);
      ours.destroy();
      const output = cutToLineEnd(Buffer.concat(chunks, kept), printed > kept);
      const code = exited?.code ?? null;
      const signal = exited?.signal ?? null;
      let status: number;
      if (failure) status = failure.kind === 'not-found' ? NOT_FOUND_STATUS : NOT_EXECUTABLE_STATUS;
      else if (timedOut) status = TIMEOUT_STATUS;
      else if (code !== null) status = code;
      else status = 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
      resolve({ failure, output, bytesPrinted: printed, capped: printed > output.length, timedOut, exitCode: code, signal, status });
    };

    child.once('error', (err: NodeJS.ErrnoException) => {
      // spawn failed: nothing ran
      if (err.code === 'ENOENT') finish({ kind: 'not-found', message: `${spec.file}: command not found` });
      else if (err.code === 'EACCES' || err.code === 'EISDIR' || err.code === 'ENOEXEC')
        finish({ kind: 'not-executable', message: `${spec.file}: cannot run (${whyNotExecutable(spec.file, err.code)})` });
      else finish({ kind: 'not-executable', message: `${spec.file}: cannot run (${err.message})` });
    });
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      finish();
    });
    ours.on('data', (chunk: Buffer) => {
      printed += chunk.length;
      if (kept >= opts.maxBytes) return;
      const room = opts.maxBytes - kept;
      const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
      chunks.push(piece);
      kept += piece.length;
    });
    const onEnd = () => {
      ended = true;
      finish();
    };
    ours.once('end', onEnd);
    ours.once('close', onEnd);
    ours.once('error', onEnd);
  });
}

/** Why spawn refused a program, as a shell says it (spawn reports a directory as EACCES). */
function whyNotExecutable(file: string, code: string): string {
  if (code === 'ENOEXEC') return 'not an executable';
  if (code === 'EISDIR' || (file.includes('/') && isDirectory(file))) return 'is a directory';
  return 'permission denied';
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A capped head ends at its last line end, so no line (nor UTF-8 character) is shown cut; a head
 * with no line end at all is kept as it is.
 */
function cutToLineEnd(head: Buffer, wasCut: boolean): Buffer {
  if (!wasCut) return head;
  const nl = head.lastIndexOf(10);
  return nl >= 0 ? head.subarray(0, nl + 1) : head;
}

/** What was piped in: the head (at most maxBytes, cut back to a line end) and how many bytes came in all. */
export async function captureStream(
  stream: AsyncIterable<Buffer | string>,
  maxBytes: number,
): Promise<{ output: Buffer; bytesPrinted: number; capped: boolean }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let printed = 0;
  // read to the end, keeping only the head: the writer is never cut off by a closed pipe
  for await (const c of stream) {
    const buf = typeof c === 'string' ? Buffer.from(c) : c;
    printed += buf.length;
    if (kept >= maxBytes) continue;
    const piece = buf.length <= maxBytes - kept ? buf : buf.subarray(0, maxBytes - kept);
    chunks.push(piece);
    kept += piece.length;
  }
  const output = cutToLineEnd(Buffer.concat(chunks, kept), printed > kept);
  return { output, bytesPrinted: printed, capped: printed > output.length };
}
