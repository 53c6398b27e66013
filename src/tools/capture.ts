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
 * Bounded: at most `maxBytes` of output are kept (its head and tail, cut to whole lines, with a
 * note between them: HeadAndTail); the rest is read and counted, never held, so memory stays
 * bounded whatever the command prints. A command
 * still running at `timeoutMs` gets SIGTERM (its group), SIGKILL a second later.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { droppedNote } from '../core/output/dropped.js';
import { formatLimit } from './readCapped.js';

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

export interface RunOutcome extends Captured {
  /** The command could not be started: `not-found` (exit 127, like a shell) or `not-executable` (126). */
  failure?: { kind: 'not-found' | 'not-executable'; message: string };
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
    const kept = new HeadAndTail(opts.maxBytes);
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
      const { output, bytesPrinted, capped, droppedBytes } = kept.result();
      const code = exited?.code ?? null;
      const signal = exited?.signal ?? null;
      let status: number;
      if (failure) status = failure.kind === 'not-found' ? NOT_FOUND_STATUS : NOT_EXECUTABLE_STATUS;
      else if (timedOut) status = TIMEOUT_STATUS;
      else if (code !== null) status = code;
      else status = 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
      resolve({ failure, output, bytesPrinted, capped, droppedBytes, timedOut, exitCode: code, signal, status });
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
    ours.on('data', (chunk: Buffer) => kept.push(chunk));
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

/** What a capture keeps of a stream, and what it dropped. */
export interface Captured {
  /** All the stream, or when it was longer than the cap its head and tail with the dropped note between them. */
  output: Buffer;
  /** Bytes the stream held in all. */
  bytesPrinted: number;
  /** Bytes dropped: the output is not all the stream. */
  capped: boolean;
  /** Bytes of the stream the output does not hold (0 when not capped). */
  droppedBytes: number;
}

/** Room a capped output keeps for the note that stands for its middle (droppedNote). */
const NOTE_ROOM = 256;

/**
 * What a capture keeps of a stream: all of it, up to `maxBytes`; beyond that its head and its tail,
 * cut to whole lines, with a note between them that says how many bytes it dropped (droppedNote),
 * at most `maxBytes` in all. A long output shows how it began and how it ended (a test run's
 * summary is its last line). Memory stays bounded: the tail is a window of the latest chunks.
 */
export class HeadAndTail {
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private readonly tail: Buffer[] = [];
  private tailLength = 0;
  /** The last byte before the tail window (of the head, or of the chunks dropped from the window). */
  private beforeWindow: number | undefined;
  private printed = 0;
  private readonly headMax: number;
  /** The tail window holds what follows the head in an output that is not capped. */
  private readonly windowMax: number;

  constructor(private readonly maxBytes: number) {
    this.headMax = Math.max(0, Math.floor((maxBytes - NOTE_ROOM) / 2));
    this.windowMax = maxBytes - this.headMax;
  }

  push(chunk: Buffer): void {
    this.printed += chunk.length;
    let rest = chunk;
    if (this.headLength < this.headMax) {
      const piece = rest.subarray(0, this.headMax - this.headLength);
      this.head.push(piece);
      this.headLength += piece.length;
      rest = rest.subarray(piece.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailLength += rest.length;
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= this.windowMax) {
      const dropped = this.tail.shift()!;
      this.tailLength -= dropped.length;
      this.beforeWindow = dropped[dropped.length - 1];
    }
  }

  result(): Captured {
    const head = Buffer.concat(this.head, this.headLength);
    const window = Buffer.concat(this.tail, this.tailLength);
    if (this.printed <= this.maxBytes) return { output: Buffer.concat([head, window]), bytesPrinted: this.printed, capped: false, droppedBytes: 0 };
    // a head cut back to its last line end, a tail from its first line start: no line (nor UTF-8 character) is shown cut
    const tailMax = Math.max(0, this.maxBytes - NOTE_ROOM - this.headMax);
    const shownHead = toLastLineEnd(head);
    const start = Math.max(0, window.length - tailMax);
    const before = start > 0 ? window[start - 1] : (this.beforeWindow ?? head[head.length - 1]);
    const shownTail = fromFirstLineStart(window.subarray(start), before === 10);
    const droppedBytes = this.printed - shownHead.length - shownTail.length;
    const opening = shownHead.length > 0 && shownHead.at(-1) !== 10 ? '\n' : '';
    const note = Buffer.from(`${opening}${droppedNote(droppedBytes, formatLimit(this.maxBytes))}\n`);
    return { output: Buffer.concat([shownHead, note, shownTail]), bytesPrinted: this.printed, capped: true, droppedBytes };
  }
}

/** A head up to its last line end (a head without one up to its last whole UTF-8 character). */
function toLastLineEnd(head: Buffer): Buffer {
  const nl = head.lastIndexOf(10);
  return nl >= 0 ? head.subarray(0, nl + 1) : head.subarray(0, utf8End(head));
}

/**
 * A tail from the start of its first whole line: itself when it starts one (`atLineStart`), else
 * after its first line end (a tail without a line end before its last byte from its first UTF-8
 * character).
 */
function fromFirstLineStart(tail: Buffer, atLineStart: boolean): Buffer {
  if (atLineStart) return tail;
  const nl = tail.indexOf(10);
  return nl >= 0 && nl < tail.length - 1 ? tail.subarray(nl + 1) : tail.subarray(utf8Start(tail));
}

// A cut inside one long line must not split a UTF-8 character: the whole output would then not be
// valid UTF-8 and be read as Latin-1 (every non-ASCII character shown as two or three others).
const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** Where the last UTF-8 character of `buf` that is cut short begins (the length when none is). */
function utf8End(buf: Buffer): number {
  for (let i = buf.length - 1; i >= Math.max(0, buf.length - 4); i--) {
    const b = buf[i];
    if (isContinuation(b)) continue;
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + size > buf.length ? i : buf.length;
  }
  return buf.length;
}

/** Past the continuation bytes `buf` starts with (at most 3: more is not UTF-8, kept as it is). */
function utf8Start(buf: Buffer): number {
  let i = 0;
  while (i < 3 && i < buf.length && isContinuation(buf[i])) i++;
  return i < buf.length && isContinuation(buf[i]) ? 0 : i;
}

/** What was piped in, kept as HeadAndTail keeps it, and how many bytes came in all. */
export async function captureStream(stream: AsyncIterable<Buffer | string>, maxBytes: number): Promise<Captured> {
  const kept = new HeadAndTail(maxBytes);
  // read to the end: the writer is never cut off by a closed pipe
  for await (const c of stream) kept.push(typeof c === 'string' ? Buffer.from(c) : c);
  return kept.result();
}
