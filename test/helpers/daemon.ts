/**
 * The daemon tests' tools (test/cli/daemon.*.test.ts): `skim` as a process from the build
 * (bin/skim.js) with a socket directory of its own or with the daemon off, the daemon's status,
 * and a bounded wait for a condition. Each test file uses its own socket directories and stops its
 * daemons (`stopDaemons`, after each test or after the file).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { runSkim } from './cli.js';

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin/skim.js');
export const built = existsSync(path.join(ROOT, 'dist/skim-read.cjs'));
export const Q = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';
export const LOGGING = readFileSync(path.join(ROOT, 'examples/logging.py'), 'utf8');

export interface Run {
  out: string;
  err: string;
  code: number | null;
}

const dirs: string[] = [];

/** Stop the daemons of the socket directories made so far (restoring their permissions first). */
export function stopDaemons(): void {
  for (const dir of dirs.splice(0)) {
    try {
      chmodSync(dir, 0o700);
      for (const f of readdirSync(dir).filter((name) => name.endsWith('.sock'))) {
        chownSync(path.join(dir, f), process.getuid?.() ?? 0, process.getgid?.() ?? 0);
        chmodSync(path.join(dir, f), 0o600);
      }
    } catch {
      // nothing to restore
    }
    skim(['daemon', 'stop'], dir);
  }
}

/** A fresh socket directory (not yet created: the first call creates it 0700). */
export function daemonDir(): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'skim-daemon-')), 'run');
  dirs.push(dir);
  return dir;
}

/** The environment of a `skim` process: none of this one's SKIM_ settings; the daemon of `dir`, or (null) none. */
export function envFor(dir: string | null, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('SKIM_')) delete env[k];
  if (dir === null) env.SKIM_DAEMON = '0';
  else env.SKIM_DAEMON_DIR = dir;
  return { ...env, ...extra };
}

/** --json's time and --explain's vary from run to run. */
const untimed = (s: string) => s.replace(/"ms":[\d.]+/g, '"ms":N').replace(/\d+(\.\d+)? ms/g, 'N ms');

/** `skim ARGS` from the build: through the daemon of `dir`, or (null) in process with the daemon off. */
export function skim(args: string[], dir: string | null, opts: { input?: string; env?: Record<string, string> } = {}): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: envFor(dir, opts.env), input: opts.input ?? '', encoding: 'utf8' });
  return { out: untimed(r.stdout), err: untimed(r.stderr), code: r.status };
}

const inProcessRuns = new Map<string, Promise<Run>>();

/**
 * What `skim ARGS` answers in process, without a daemon: the answer the daemon's must equal. The
 * modules themselves, run in this process (test/helpers/cli.ts; that the built binary's own runs
 * answer the same is test/cli/bundle.test.ts's), with none of this process's SKIM_ settings. A
 * command without session memory gives the same output for the same arguments and input (and the
 * files it reads are not changed by these tests), so each is run once per test file.
 */
export function inProcess(args: string[], input?: string): Promise<Run> {
  const key = JSON.stringify([args, input ?? '']);
  let run = inProcessRuns.get(key);
  if (!run) {
    const env: Record<string, string | undefined> = {};
    for (const k of Object.keys(process.env)) if (k.startsWith('SKIM_')) env[k] = undefined;
    run = runSkim(args, { input, env }).then((r) => ({ out: untimed(r.stdout), err: untimed(r.stderr), code: r.status }));
    inProcessRuns.set(key, run);
  }
  return run;
}

export function skimAsync(args: string[], dir: string, input?: string): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: envFor(dir) });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  if (input !== undefined) child.stdin!.end(input);
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ out: untimed(out), err: untimed(err), code })));
  return { child, done };
}

export interface Status {
  pid: number;
  served: number;
  queued: number;
  waiting: number;
}

/** `skim daemon status`, read; null when no daemon answers. */
export function status(dir: string): Status | null {
  const r = skim(['daemon', 'status'], dir);
  if (r.code !== 0) return null;
  const m = /pid (\d+).*\n {2}up \d+ s, (\d+) request\(s\) served, (\d+) in progress, (\d+) waiting for stdin/.exec(r.out);
  return m ? { pid: Number(m[1]), served: Number(m[2]), queued: Number(m[3]), waiting: Number(m[4]) } : null;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll (a bounded number of times) until `check` holds; the test fails if it never does. */
export async function until<T>(check: () => T | null | undefined | false, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = check();
    if (v) return v;
    await pause(50);
  }
  throw new Error(`never: ${what}`);
}

export const socketIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.sock')) : undefined);

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Start a daemon in `dir` (the first call starts it) and wait until it answers. */
export async function started(dir: string, env: Record<string, string> = {}): Promise<Status> {
  skim(['cat', 'examples/logging.py', '--focus', Q], dir, { env });
  await until(() => socketIn(dir), 'the daemon listens');
  return until(() => status(dir), 'the daemon answers');
}

/** One warm daemon for a describe block, in a private socket directory, handed to `use` before the block's tests run. */
export function useStartedDaemon(use: (dir: string) => void): void {
  beforeAll(async () => {
    const dir = daemonDir();
    await started(dir);
    use(dir);
  });
  afterAll(() => stopDaemons());
}
