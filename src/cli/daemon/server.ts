/**
 * The daemon: a background skim process that runs the read commands for the CLI (./client.ts),
 * so that a shell agent's every read finds the grammars, the model and the compiled code warm.
 *
 * It runs the very code the CLI runs in process (../program.ts with the read commands), one
 * request at a time, in the request's working directory and environment, with a CliIO (../io.ts)
 * whose stdin is the client's and whose stdout and stderr go to it: the process-wide state (cwd,
 * env) belongs to one request at a time, and pruning is single-threaded work anyway. Bounded: a request frame is at
 * most MAX_REQUEST_BYTES and stdin at most the input cap; at most MAX_QUEUE requests wait (more
 * are refused: the client works in process); the heap is capped by the client that starts it
 * (--max-old-space-size) and a daemon grown past its RSS limit exits after answering; the client
 * bounds the time (it stops a daemon that does not answer and works in process). Exits after
 * SKIM_DAEMON_IDLE_MS without a request, on `skim daemon stop`, and on a request of another build.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { Readable, Writable } from 'node:stream';
import { isSkimErrorCode, SkimError } from '../../core/errors.js';
import { MAX_INPUT_BYTES } from '../../tools/readCapped.js';
import { VERSION } from '../../version.js';
import type { CliIO } from '../io.js';
import { runProgram } from '../program.js';
import { READ_COMMANDS } from '../readCommands.js';
import { encodeFrame, FRAME, type Frame, jsonOf, readFrames } from './frames.js';
import { buildFingerprint, checkDir, checkSocket, type DaemonPlace, daemonPlace, PACKAGE_ROOT } from './place.js';
import { asRunRequest, type ControlRequest, type DaemonInfo, MAX_REQUEST_BYTES, type Refusal, type RunRequest } from './protocol.js';

const MAX_QUEUE = 8;
/** How long a run waits for its client to print its output before it records a read (a slow reader holds no one). */
const DEFAULT_PRINT_WAIT_MS = 5_000;
const DEFAULT_IDLE_MS = 15 * 60 * 1000;
const DEFAULT_MAX_RSS_MB = 1024;

function envNumber(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return process.env[name] && Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Is a daemon answering on this socket? */
export function socketAnswers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(socket);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/**
 * Run the daemon until it exits. Resolves with a message when it cannot start (the place is not
 * private, another daemon answers there); never resolves while serving.
 */
export async function runDaemon(place: DaemonPlace = daemonPlace()): Promise<string> {
  const settings = {
    idleMs: envNumber('SKIM_DAEMON_IDLE_MS', DEFAULT_IDLE_MS),
    maxRss: envNumber('SKIM_DAEMON_MAX_RSS_MB', DEFAULT_MAX_RSS_MB) * 1024 * 1024,
    printWaitMs: envNumber('SKIM_DAEMON_PRINT_WAIT_MS', DEFAULT_PRINT_WAIT_MS),
    fingerprint: buildFingerprint(),
  };
  const release = () => rmSync(place.startLock, { force: true });
  const problem = await placeProblem(place, release);
  if (problem) return problem;

  process.chdir('/'); // hold no directory; each request runs in its own
  const server = net.createServer();
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(place.socket, () => resolve());
    });
  } catch (err) {
    release();
    return `cannot listen on ${place.socket}: ${(err as Error).message}`;
  } finally {
    process.umask(oldMask);
  }
  chmodSync(place.socket, 0o600);
  const ownInode = statSync(place.socket).ino;
  release();

  writeFileSync(place.pidFile, `${process.pid}\n`, { mode: 0o600 });

  const d: Daemon = {
    ...settings,
    place,
    server,
    ownInode,
    startedAt: Date.now(),
    served: 0,
    queued: 0,
    waitingForStdin: new Set(),
    stopping: false,
    chain: Promise.resolve(),
    idleTimer: undefined,
  };
  process.on('SIGTERM', () => shutdown(d));
  process.on('SIGINT', () => shutdown(d));
  process.on('uncaughtException', () => shutdown(d, 70));
  process.on('unhandledRejection', () => shutdown(d, 70));
  server.on('connection', (conn) => accept(d, conn));
  d.chain = d.chain.then(warmUp).then(() => armIdle(d)); // idle from the end of the warm-up
  return new Promise<string>(() => {}); // serves until it exits
}

/** Why the daemon cannot listen at `place` ('' when it can: a private directory, no socket or a stale one, removed). */
async function placeProblem(place: DaemonPlace, release: () => void): Promise<string> {
  try {
    mkdirSync(place.dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    release();
    return `cannot create ${place.dir}: ${(err as Error).message}`;
  }
  const dirProblem = checkDir(place.dir);
  if (dirProblem) return `not starting: ${dirProblem}`;
  const socketProblem = checkSocket(place.socket);
  if (socketProblem && socketProblem !== 'missing') {
    release();
    return `not starting: ${socketProblem}`;
  }
  if (!socketProblem) {
    if (await socketAnswers(place.socket)) {
      release();
      return `a daemon already answers on ${place.socket}`;
    }
    rmSync(place.socket, { force: true }); // stale: its daemon is gone
  }
  return '';
}

/** A serving daemon: its settings, its socket, and its queue (one request at a time, in a chain). */
interface Daemon {
  place: DaemonPlace;
  server: net.Server;
  /** The socket's inode: removed at exit only while it is this daemon's (not a successor's). */
  ownInode: number;
  fingerprint: string;
  idleMs: number;
  maxRss: number;
  printWaitMs: number;
  startedAt: number;
  served: number;
  queued: number;
  waitingForStdin: Set<Connection>;
  stopping: boolean;
  chain: Promise<void>;
  idleTimer: NodeJS.Timeout | undefined;
}

function shutdown(d: Daemon, code = 0): void {
  const { place } = d;
  d.stopping = true;
  // the socket and pid file, while they are this daemon's (not a successor's)
  removeIf(place.pidFile, () => readFileSync(place.pidFile, 'utf8').trim() === String(process.pid));
  removeIf(place.socket, () => statSync(place.socket).ino === d.ownInode);
  d.server.close();
  for (const c of d.waitingForStdin) c.close();
  // whatever is queued is answered first
  void d.chain.then(() => process.exit(code));
}

function armIdle(d: Daemon): void {
  clearTimeout(d.idleTimer);
  d.idleTimer = setTimeout(() => d.queued === 0 && d.waitingForStdin.size === 0 && shutdown(d), d.idleMs);
}

function info(d: Daemon): DaemonInfo {
  return {
    pid: process.pid,
    version: VERSION,
    fingerprint: d.fingerprint,
    socket: d.place.socket,
    startedAt: d.startedAt,
    served: d.served,
    queued: d.queued,
    waitingForStdin: d.waitingForStdin.size,
    rssBytes: process.memoryUsage.rss(),
    idleExitMs: d.idleMs,
    stopping: d.stopping,
  };
}

/** Queue a request; one that turns out to read stdin waits for it outside the queue, then comes back. */
function enqueue(d: Daemon, c: Connection): void {
  d.queued++;
  clearTimeout(d.idleTimer);
  d.chain = d.chain.then(async () => {
    const outcome = await c.run();
    d.queued--;
    if (outcome === 'done') d.served++;
    if (outcome === 'needs-stdin') {
      d.waitingForStdin.add(c);
      c.whenStdin(() => d.waitingForStdin.delete(c) && enqueue(d, c));
    }
    if (process.memoryUsage.rss() > d.maxRss) shutdown(d);
    else armIdle(d);
  });
}

/** A peer on the socket: its first frame is a control request (status, stop) or a run request; the rest go to its run. */
function accept(d: Daemon, conn: net.Socket): void {
  conn.on('error', () => conn.destroy());
  let client: Connection | undefined;
  conn.once('close', () => {
    if (client && d.waitingForStdin.delete(client)) armIdle(d);
  });
  readFrames(
    conn,
    MAX_INPUT_BYTES + 64 * 1024,
    (frame) => {
      if (client) return client.onFrame(frame);
      client = firstFrame(d, conn, frame);
    },
    () => conn.destroy(),
  );
}

/** Answer a peer's first frame; the run it starts, if any. */
function firstFrame(d: Daemon, conn: net.Socket, frame: Frame): Connection | undefined {
  const refuse = (r: Refusal) => void conn.end(encodeFrame(FRAME.refused, r));
  if (frame.kind !== FRAME.request || frame.payload.length > MAX_REQUEST_BYTES) return refuse({ reason: 'bad-request' });
  let body: unknown;
  try {
    body = jsonOf(frame);
  } catch {
    return refuse({ reason: 'bad-request' });
  }
  const op = (body as ControlRequest).op;
  if (op === 'status') return void conn.end(encodeFrame(FRAME.info, info(d)));
  if (op === 'stop') {
    conn.end(encodeFrame(FRAME.info, { ...info(d), stopping: true }));
    shutdown(d);
    return undefined;
  }
  const req = asRunRequest(body);
  if (!req) return refuse({ reason: 'bad-request' });
  if (d.stopping) return refuse({ reason: 'stopping' });
  if (req.fingerprint !== d.fingerprint) {
    refuse({ reason: 'build', message: 'the package or model changed since this daemon started' });
    shutdown(d);
    return undefined;
  }
  if (d.queued >= MAX_QUEUE) return refuse({ reason: 'busy' });
  const client = new Connection(conn, req, d.printWaitMs);
  conn.write(encodeFrame(FRAME.accepted, { pid: process.pid }));
  enqueue(d, client);
  return client;
}

function removeIf(file: string, ours: () => boolean): void {
  try {
    if (ours()) rmSync(file, { force: true });
  } catch {
    // gone already
  }
}

/** The command read stdin before the daemon had it: it runs again once the client has sent it. */
class NeedsStdin extends Error {}

/** The client could not write the output: the error a failed write to stdout is in process (../program.ts reads it so). */
function writeFailure(f: { code?: unknown; message?: unknown }): Error {
  return Object.assign(new Error(String(f.message)), { code: String(f.code), syscall: 'write' });
}

/**
 * One client's request. A command that reads stdin is stopped at that point and run again, from
 * the start, once the client has sent its stdin (the output of the stopped run is dropped by the
 * client): so a client slow to give its stdin never holds the queue.
 */
class Connection {
  private stdin?: { bytes: Buffer } | { error: Error };
  /** This run asked for stdin before it was sent. */
  private needsStdin = false;
  /** A `print` sent, waiting for the client's `printed` (`late`: the run went on without it). */
  private printing?: { resolve: (delivered: boolean) => void; reject: (err: Error) => void; late?: boolean };
  private onStdin?: () => void;

  constructor(
    private readonly conn: net.Socket,
    private readonly req: RunRequest,
    private readonly printWaitMs: number,
  ) {
    conn.once('close', () => this.printing?.reject(writeFailure({ code: 'EPIPE', message: 'the client went away' })));
  }

  whenStdin(fn: () => void): void {
    this.onStdin = fn;
  }

  close(): void {
    this.conn.destroy();
  }

  onFrame(frame: Frame): void {
    if (frame.kind === FRAME.printed && this.printing) {
      const { resolve, reject, late } = this.printing;
      this.printing = undefined;
      if (late) return void this.conn.end(); // its `done` went out already
      const failure = jsonOf<{ code?: unknown; message?: unknown }>(frame);
      if (failure.code === undefined) resolve(true);
      else reject(writeFailure(failure));
      return;
    }
    if (!this.onStdin || this.stdin) return void this.conn.destroy(); // not asked for
    if (frame.kind === FRAME.stdin) this.stdin = { bytes: frame.payload };
    else if (frame.kind === FRAME.stdinError) {
      const e = jsonOf<{ code?: unknown; message?: unknown }>(frame);
      this.stdin = { error: isSkimErrorCode(e.code) ? new SkimError(String(e.message), e.code) : new Error(String(e.message)) };
    } else return void this.conn.destroy();
    this.onStdin();
  }

  private send(kind: number, payload: Buffer | object): Promise<void> {
    return new Promise((resolve) => {
      if (this.conn.destroyed || !this.conn.writable) return resolve();
      if (this.conn.write(encodeFrame(kind, payload))) resolve();
      else this.conn.once('drain', () => resolve());
    });
  }

  /** The run's IO: the client's stdin (once sent), stdout and stderr (as frames), environment and terminals. */
  private io(): CliIO {
    const req = this.req;
    const sent = this.stdin;
    const to = (kind: number) => new Writable({ write: (chunk: Buffer, _encoding, done) => void this.send(kind, chunk).then(() => done()) });
    let stdin: Readable;
    if (!sent) {
      // the command reads stdin before the daemon has it: stopped here, it runs again once sent
      stdin = new Readable({
        read: () => {
          this.needsStdin = true;
          stdin.destroy(new NeedsStdin());
        },
      });
    } else if ('error' in sent) stdin = new Readable({ read: () => stdin.destroy(sent.error) });
    else stdin = Readable.from([sent.bytes]); // a second read finds it at its end, as in process
    return {
      stdin: Object.assign(stdin, { isTTY: req.stdinIsTTY }),
      stdout: to(FRAME.stdout),
      stderr: to(FRAME.stderr),
      env: { ...req.env },
      stdinIsReadable: () => req.stdinIsReadable,
      terminals: { stdout: req.stdoutTerminal, stderr: req.stderrTerminal },
      // the client holds the output until asked: session memory asks before it records the read
      delivered: () =>
        new Promise<boolean>((resolve, reject) => {
          if (this.conn.destroyed) return reject(writeFailure({ code: 'EPIPE', message: 'the client went away' }));
          const printing: NonNullable<Connection['printing']> = { resolve, reject };
          this.printing = printing;
          void this.send(FRAME.print, {});
          // a client still printing (a reader that does not read) holds the queue no longer: not
          // known to be shown, the read is not recorded, and the connection waits for `printed`
          setTimeout(() => {
            if (this.printing !== printing) return;
            printing.late = true;
            resolve(false);
          }, this.printWaitMs).unref();
        }),
    };
  }

  /** Run the command as the client's own process would, then say how it exited. */
  async run(): Promise<'done' | 'needs-stdin' | 'gone'> {
    if (this.conn.destroyed) return 'gone';
    this.needsStdin = false;
    try {
      const exitCode = await runCommand(this.req.args, this.req.cwd, this.io());
      if (this.needsStdin) {
        await this.send(FRAME.needStdin, {});
        return 'needs-stdin';
      }
      if (this.printing?.late)
        this.conn.write(encodeFrame(FRAME.done, { exitCode })); // ended on `printed`
      else this.conn.end(encodeFrame(FRAME.done, { exitCode }));
      return 'done';
    } catch (err) {
      // (a working directory that is gone, say): the client runs it and says so as it would
      this.conn.end(encodeFrame(FRAME.refused, { reason: 'error', message: (err as Error)?.message } satisfies Refusal));
      return 'gone';
    }
  }
}

/**
 * Run a command line as a process of its own would: in `cwd`, with `io` (its environment too).
 * Resolves with its exit code. Callers take turns (the daemon's queue): the working directory is
 * the process's, and so is process.env, set to the run's for code that reads it directly.
 */
async function runCommand(args: string[], cwd: string, io: CliIO): Promise<number> {
  const ownEnv = process.env;
  process.chdir(cwd);
  process.env = { ...io.env };
  try {
    await runProgram(['node', 'skim', ...args], READ_COMMANDS, io);
    return Number(io.exitCode ?? 0);
  } finally {
    process.env = ownEnv;
    process.chdir('/');
  }
}

/** Load the grammars and the model and compile the hot code, by running what the CLI runs most. */
async function warmUp(): Promise<void> {
  const q = 'where are the records replaced instead of cleared?';
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SKIM_')) env[k] = v;
  for (const args of [
    ['cat', 'examples/logging.py', '--focus', q],
    ['grep', '-n', 'records', 'examples', '--focus', q],
  ]) {
    try {
      const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });
      await runCommand(args, PACKAGE_ROOT, { stdin: Readable.from([]), stdout: discard(), stderr: discard(), env, stdinIsReadable: () => false });
    } catch {
      // a package without its examples: the first requests warm it instead
    }
  }
}
