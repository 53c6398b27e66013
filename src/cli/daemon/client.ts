/**
 * The CLI's side of the daemon (./server.ts): hand a read command to the user's warm skim process
 * and print what it answers, or say that this process must do the work itself. Any failure
 * (no daemon, a socket that is not private, a daemon of another build, a daemon that dies, errs or
 * does not answer in time) means "do it yourself": a read is never lost. The daemon's output is
 * held until it has finished, so a daemon lost mid-request leaves nothing half-printed; the stdin
 * it was sent is given back to the in-process run. The first call starts a daemon, detached, for
 * the calls after it, as it exits (its own work done). Loads only what a call needs: no commander, no pruning code.
 */

import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import { EXIT_INTERNAL, EXIT_OUTPUT } from '../../core/errors.js';
import { guardStdout, processStdinIsReadable, terminalOf } from '../processStreams.js';
import { encodeFrame, FRAME, type Frame, jsonOf, readFrames } from './frames.js';
import { buildFingerprint, checkDir, checkSocket, type DaemonPlace, daemonPlace, PACKAGE_ROOT } from './place.js';
import type { RunRequest } from './protocol.js';

// loaded when used: most calls neither start a daemon nor read stdin
const require = createRequire(import.meta.url);
const childProcess = (): typeof import('node:child_process') => require('node:child_process');
const streamModule = (): typeof import('node:stream') => require('node:stream');

/** How long a daemon may take over a request before the client stops it and works itself. */
const DEFAULT_TIMEOUT_MS = 120_000;
/** A start lock older than this is from a start that failed. */
const STALE_START_MS = 10_000;
/** The daemon's heap cap (MB); a request that would need more runs in process instead. */
const DAEMON_HEAP_MB = 2048;

/** Start a daemon, detached, unless another call is starting one. Never throws. */
export function startDaemon(place: DaemonPlace = daemonPlace()): void {
  try {
    mkdirSync(place.dir, { recursive: true, mode: 0o700 });
    if (checkDir(place.dir)) return;
    try {
      closeSync(openSync(place.startLock, 'wx', 0o600));
    } catch {
      // another call is starting one, or a start failed: retry once the lock is stale
      if (Date.now() - statSync(place.startLock).mtimeMs < STALE_START_MS) return;
      closeSync(openSync(place.startLock, 'w', 0o600));
    }
    const child = childProcess().spawn(process.execPath, [`--max-old-space-size=${DAEMON_HEAP_MB}`, join(PACKAGE_ROOT, 'bin', 'skim.js'), 'daemon', 'run'], {
      detached: true,
      stdio: 'ignore',
      cwd: '/',
      env: { ...process.env, SKIM_DAEMON_DIR: place.dir },
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no daemon this time: the call works in process as before
  }
}

/**
 * Start a daemon as this process exits, once its own work is done and printed: a daemon loading
 * its model meanwhile would take CPU from the call that starts it (the first call would be slower
 * than one without a daemon).
 */
function startDaemonAtExit(place: DaemonPlace): void {
  if (startAtExit) return;
  startAtExit = true;
  process.once('exit', () => startDaemon(place));
}
let startAtExit = false;

/** The pid the daemon wrote beside its socket (one that accepts connections but never answers). */
function pidOf(place: DaemonPlace): number | undefined {
  try {
    const pid = Number(readFileSync(place.pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** What was read from stdin for the daemon, to give back to an in-process run. */
interface TakenStdin {
  chunks: Buffer[];
  /** stdin reached its end (else reading stopped: past the cap, or the daemon was lost). */
  ended: boolean;
}

/**
 * Reads stdin up to one byte past the cap without closing it (an in-process run may need the
 * rest: to fail as it would have, over the cap, or to read it all when the daemon is lost).
 */
class StdinTaker {
  readonly taken: TakenStdin = { chunks: [], ended: false };
  readonly done: Promise<TakenStdin>;
  private total = 0;
  private finish!: (ended: boolean) => void;

  constructor(maxBytes: number) {
    const stdin = process.stdin;
    const onData = (c: Buffer) => {
      this.taken.chunks.push(c);
      this.total += c.length;
      if (this.total > maxBytes) this.finish(false);
    };
    const onEnd = () => this.finish(true);
    this.done = new Promise((resolve) => {
      this.finish = (ended) => {
        stdin.off('data', onData);
        stdin.off('end', onEnd);
        stdin.off('error', onEnd);
        if (!ended) stdin.pause();
        this.taken.ended ||= ended;
        this.finish = () => {};
        resolve(this.taken);
      };
    });
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
  }

  /** Stop reading now (the daemon is lost): what was taken so far. */
  stop(): TakenStdin {
    this.finish(false);
    return this.taken;
  }
}

/** Give the in-process run the stdin the daemon was sent, followed by whatever was not read. */
function giveBackStdin(taken: TakenStdin): void {
  const original = process.stdin;
  const replay = new (streamModule().PassThrough)();
  for (const c of taken.chunks) replay.write(c);
  if (taken.ended) replay.end();
  else original.pipe(replay);
  Object.assign(replay, { isTTY: original.isTTY, fd: 0 });
  Object.defineProperty(process, 'stdin', { value: replay, configurable: true, writable: true });
}

/** Write the frames in order; resolves with the error of the write that failed, if one did. */
function writeAll(frames: Frame[]): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    let i = 0;
    const next = (err?: Error | null): void => {
      if (err) return void resolve(err);
      if (i === frames.length) return void resolve(undefined);
      const f = frames[i++];
      (f.kind === FRAME.stdout ? process.stdout : process.stderr).write(f.payload, next);
    };
    next();
  });
}

/**
 * Run `args` (the arguments after `skim`) through the daemon. True when it answered (its output
 * is printed, process.exitCode set); false when this process must do the work itself.
 */
export async function runThroughDaemon(args: string[]): Promise<boolean> {
  const place = daemonPlace();
  const dirProblem = checkDir(place.dir);
  const socketProblem = dirProblem || checkSocket(place.socket);
  if (socketProblem === 'missing') {
    startDaemonAtExit(place);
    return false;
  }
  if (socketProblem) return false; // not private: refused, and left alone

  const timeoutMs = Number(process.env.SKIM_DAEMON_TIMEOUT_MS) > 0 ? Number(process.env.SKIM_DAEMON_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS;
  let call: DaemonCall | undefined;
  const answered = await new Promise<boolean>((resolve) => {
    call = startCall(place, runRequest(args), timeoutMs, resolve);
  });
  const taker = call?.taker;
  if (taker && !answered) giveBackStdin(taker.stop());
  else if (taker && !taker.taken.ended) process.stdin.destroy(); // over the cap: the rest is not read, as in process
  return answered;
}

/** The request for `args`: this process's working directory, environment and terminals. */
function runRequest(args: string[]): RunRequest {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    fingerprint: buildFingerprint(),
    args,
    cwd: process.cwd(),
    env,
    stdinIsTTY: isatty(0), // (process.stdin would open the stream)
    stdinIsReadable: processStdinIsReadable(),
    stdoutTerminal: terminalOf(process.stdout),
    stderrTerminal: terminalOf(process.stderr),
  };
}

/** One call through the daemon: its connection, the output held until the daemon is done, and how the call stands. */
interface DaemonCall {
  place: DaemonPlace;
  conn: net.Socket;
  timeoutMs: number;
  output: Frame[];
  /** Output was printed before the daemon finished (a `print`), and how that went. */
  printed: boolean;
  printFailure: NodeJS.ErrnoException | undefined;
  daemonPid: number | undefined;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
  /** What took this process's stdin for the daemon, once it asked for it. */
  taker: StdinTaker | undefined;
  /** Called once: true when the daemon answered. */
  resolve: (answered: boolean) => void;
}

/** Connect, send the request, and follow the daemon's frames until the call settles. */
function startCall(place: DaemonPlace, req: RunRequest, timeoutMs: number, resolve: (answered: boolean) => void): DaemonCall {
  const conn = net.connect(place.socket);
  const call: DaemonCall = {
    place,
    conn,
    timeoutMs,
    output: [],
    printed: false,
    printFailure: undefined,
    daemonPid: undefined,
    timer: undefined,
    settled: false,
    taker: undefined,
    resolve,
  };
  conn.once('connect', () => {
    conn.write(encodeFrame(FRAME.request, req));
    arm(call);
  });
  conn.on('error', (err: NodeJS.ErrnoException) => {
    // a socket left by a daemon that died: start a new one (it clears the old socket)
    if (err.code === 'ECONNREFUSED') startDaemonAtExit(place);
    settle(call, false);
  });
  conn.on('close', () => settle(call, false));
  readFrames(
    conn,
    Number.MAX_SAFE_INTEGER,
    (frame) => {
      if (call.settled) return;
      try {
        onDaemonFrame(call, frame);
      } catch {
        settle(call, false); // a frame that does not parse: not a daemon to trust with this read
      }
    },
    () => settle(call, false),
  );
  return call;
}

/** End the call: print the output the daemon gave (true), or leave the work to this process (false) unless output is out already. */
function settle(call: DaemonCall, ok: boolean): void {
  if (call.settled) return;
  call.settled = true;
  clearTimeout(call.timer);
  call.conn.destroy();
  if (!ok && call.printed) {
    // the output is out: the call cannot be made again here
    process.stderr.write('skim: the daemon stopped after the output was printed, before it finished\n');
    process.exitCode = EXIT_INTERNAL;
    call.resolve(true);
    return;
  }
  if (!ok) {
    call.resolve(false);
    return;
  }
  if (call.printFailure) {
    // as in process: quiet when the reader went away, else said
    if (call.printFailure.code !== 'EPIPE') process.stderr.write(`skim: cannot write output: ${call.printFailure.message}\n`);
    process.exitCode = call.printFailure.code === 'EPIPE' ? 0 : EXIT_OUTPUT;
    call.resolve(true);
    return;
  }
  guardStdout();
  void writeAll(call.output).then(() => call.resolve(true));
}

/** (Re)start the daemon's time: a daemon that does not answer in time is stopped, and the next call starts a fresh one. */
function arm(call: DaemonCall): void {
  clearTimeout(call.timer);
  if (call.settled) return;
  call.timer = setTimeout(() => {
    const pid = call.daemonPid ?? pidOf(call.place);
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    settle(call, false);
  }, call.timeoutMs);
}

function onDaemonFrame(call: DaemonCall, frame: Frame): void {
  switch (frame.kind) {
    case FRAME.accepted:
      call.daemonPid = jsonOf<{ pid: number }>(frame).pid;
      return;
    case FRAME.stdout:
    case FRAME.stderr:
      call.output.push(frame);
      return;
    case FRAME.needStdin:
      // the command reads stdin: what it wrote so far is dropped, and it runs again with it
      call.output.length = 0;
      clearTimeout(call.timer); // reading our own stdin is not the daemon's time
      void sendStdin(call).then(
        () => arm(call),
        () => settle(call, false),
      );
      return;
    case FRAME.print:
      // session memory records a read once its output has reached the reader: print it now
      clearTimeout(call.timer); // writing our own stdout is not the daemon's time
      call.printed = true;
      process.stdout.on('error', () => {}); // a failed write comes back to the daemon as `printed`
      void writeAll(call.output.splice(0)).then((err) => {
        call.printFailure = err;
        if (!call.conn.destroyed) call.conn.write(encodeFrame(FRAME.printed, err ? { code: err.code ?? 'EIO', message: err.message } : {}));
        arm(call);
      });
      return;
    case FRAME.done: {
      const { exitCode } = jsonOf<{ exitCode?: unknown }>(frame);
      if (!Number.isInteger(exitCode)) {
        settle(call, false);
        return;
      }
      process.exitCode = exitCode as number;
      settle(call, true);
      return;
    }
    case FRAME.refused:
      // a daemon of another build has exited: start one of ours for the next call
      if (jsonOf<{ reason: string }>(frame).reason === 'build') startDaemonAtExit(call.place);
      settle(call, false);
      return;
    default:
      settle(call, false);
      return;
  }
}

async function sendStdin(call: DaemonCall): Promise<void> {
  const { MAX_INPUT_BYTES, readStreamCapped } = await import('../../tools/readCapped.js');
  call.taker ??= new StdinTaker(MAX_INPUT_BYTES);
  const taken = await call.taker.done;
  if (call.conn.destroyed) return;
  try {
    // the same reading as in process, over what was taken: the same bytes, or the same error
    const bytes = await readStreamCapped(streamModule().Readable.from(taken.chunks), MAX_INPUT_BYTES, 'stdin');
    call.conn.write(encodeFrame(FRAME.stdin, bytes));
  } catch (err) {
    const e = err as { code?: string; message?: string };
    call.conn.write(encodeFrame(FRAME.stdinError, { code: e.code, message: e.message }));
  }
}
