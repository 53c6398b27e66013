/**
 * The per-user daemon behind `skim cat` / `grep` / `prune` (src/cli/daemon/): the same bytes, exit
 * codes and session behaviour as in process; any failure (a killed daemon, a stale or foreign
 * socket, a daemon of another build) leaves the CLI doing the work itself. Each test uses its own
 * socket directory (SKIM_DAEMON_DIR) and stops its daemon. Needs a built dist/, as bin/skim.js does.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Each test spawns tens of processes: on a loaded machine that takes minutes. The limit is there to
// catch a hang, not to time anything.
vi.setConfig({ testTimeout: 300_000 });

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/skim.js');
const built = existsSync(path.join(ROOT, 'dist/skim-read.cjs'));
const Q = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';
const LOGGING = readFileSync(path.join(ROOT, 'examples/logging.py'), 'utf8');

interface Run {
  out: string;
  err: string;
  code: number | null;
}

const dirs: string[] = [];
afterEach(() => {
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
});

/** A fresh socket directory (not yet created: the first call creates it 0700). */
function daemonDir(): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'skim-daemon-')), 'run');
  dirs.push(dir);
  return dir;
}

function envFor(dir: string | null, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('SKIM_')) delete env[k];
  if (dir === null) env.SKIM_DAEMON = '0';
  else env.SKIM_DAEMON_DIR = dir;
  return { ...env, ...extra };
}

/** --json's time and --explain's vary from run to run. */
const untimed = (s: string) => s.replace(/"ms":[\d.]+/g, '"ms":N').replace(/\d+(\.\d+)? ms/g, 'N ms');

function skim(args: string[], dir: string | null, opts: { input?: string; env?: Record<string, string> } = {}): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: envFor(dir, opts.env), input: opts.input ?? '', encoding: 'utf8' });
  return { out: untimed(r.stdout), err: untimed(r.stderr), code: r.status };
}

function skimAsync(args: string[], dir: string, input?: string): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: envFor(dir) });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  if (input !== undefined) child.stdin!.end(input);
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ out: untimed(out), err: untimed(err), code })));
  return { child, done };
}

interface Status {
  pid: number;
  served: number;
  queued: number;
  waiting: number;
}

function status(dir: string): Status | null {
  const r = skim(['daemon', 'status'], dir);
  if (r.code !== 0) return null;
  const m = /pid (\d+).*\n {2}up \d+ s, (\d+) request\(s\) served, (\d+) in progress, (\d+) waiting for stdin/.exec(r.out);
  return m ? { pid: Number(m[1]), served: Number(m[2]), queued: Number(m[3]), waiting: Number(m[4]) } : null;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll (a bounded number of times) until `check` holds; the test fails if it never does. */
async function until<T>(check: () => T | null | undefined | false, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = check();
    if (v) return v;
    await pause(50);
  }
  throw new Error(`never: ${what}`);
}

const socketIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith('.sock')) : undefined);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Start a daemon in `dir` (the first call starts it) and wait until it answers. */
async function started(dir: string, env: Record<string, string> = {}): Promise<Status> {
  skim(['cat', 'examples/logging.py', '--focus', Q], dir, { env });
  await until(() => socketIn(dir), 'the daemon listens');
  return until(() => status(dir), 'the daemon answers');
}

const CASES: [string, string[], string?][] = [
  ['prune, threshold mode', ['prune', 'examples/logging.py', '--query', Q]],
  ['prune at ratio 4, --json', ['prune', 'examples/logging.py', '--query', Q, '--ratio', '4', '--json']],
  ['prune from stdin', ['prune', '-', '--query', Q, '--tokens', '800'], LOGGING],
  ['prune --explain', ['prune', 'examples/logging.py', '--query', Q, '--explain']],
  ['cat --focus on two files', ['cat', 'examples/logging.py', 'examples/playground-lru_cache.go', '--focus', Q]],
  ['cat without --focus', ['cat', 'examples/playground-lru_cache.go']],
  ['grep --focus', ['grep', '-C', '3', 'records', 'examples', '--focus', Q]],
  ['grep from stdin', ['grep', '-n', 'def '], LOGGING],
  ['grep with no match (exit 1)', ['grep', 'no-such-text-anywhere', 'examples']],
  ['grep, a bad pattern (exit 2)', ['grep', '-E', 'a{1', 'examples']],
  ['prune --help', ['prune', '--help']],
  ['a usage error (exit 64)', ['prune', '--ratio', '0', 'examples/logging.py']],
  ['a missing file (exit 1)', ['cat', 'examples/none.py', '--focus', Q]],
  ['no input on stdin', ['prune', '--query', Q]],
];

describe.skipIf(!built)('the daemon', () => {
  it('answers every read command with the bytes, stderr and exit code of in-process work', async () => {
    const dir = daemonDir();
    const before = await started(dir);
    for (const [what, args, input] of CASES) {
      const want = skim(args, null, { input });
      const got = skim(args, dir, { input });
      expect({ what, ...got }).toEqual({ what, ...want });
    }
    // every one of them was the daemon's work, not a fallback
    expect(status(dir)!.served).toBe(before.served + CASES.length);
  });

  it('a call it answers loads no ES module in the client (bin/skim.js and dist/skim-launch.cjs are CommonJS)', async () => {
    const dir = daemonDir();
    const before = await started(dir);
    // whether Node ran its ES module loader for a module, written by the client as it exits
    const probe = path.join(mkdtempSync(path.join(os.tmpdir(), 'skim-probe-')), 'probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write('es-modules:' + process.moduleLoadList.some((m) => m.endsWith('esm/module_job')) + '\\n'));",
    );
    const warm = skim(['cat', 'examples/logging.py', '--focus', Q], dir, { env: { NODE_OPTIONS: `--require ${probe}` } });
    expect(warm.code).toBe(0);
    expect(warm.err).toContain('es-modules:false\n');
    expect(status(dir)!.served).toBe(before.served + 1);
    // the probe tells the two apart: the modules themselves (SKIM_NO_BUNDLE) load ES modules
    const modules = skim(['cat', 'examples/logging.py', '--focus', Q], dir, { env: { NODE_OPTIONS: `--require ${probe}`, SKIM_NO_BUNDLE: '1' } });
    expect(modules.out).toBe(warm.out);
    expect(modules.err).toContain('es-modules:true\n');
  });

  it('records a read in the session only once its output reached the reader (`| head`), as in process', async () => {
    const dir = daemonDir();
    const before = await started(dir);
    const work = mkdtempSync(path.join(os.tmpdir(), 'skim-daemon-head-'));
    // longer than a pipe holds: `head` goes away before the output is all written
    const file = path.join(work, 'big.py');
    writeFileSync(file, `${Array.from({ length: 8_000 }, (_, i) => `def f${i}(x):\n    return x + ${i}`).join('\n')}\n`);
    const reads = (d: string | null, store: string) => {
      const session = { SKIM_SESSION: 'head', SKIM_SESSION_DIR: store };
      const cut = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" cat "${file}" | head -20`], { cwd: ROOT, env: envFor(d, session), encoding: 'utf8' });
      return { cut: cut.stdout, next: skim(['cat', file, '--focus', 'Which function returns x plus three?'], d, { env: session }) };
    };
    const want = reads(null, path.join(work, 'a'));
    const got = reads(dir, path.join(work, 'b'));
    expect(got).toEqual(want);
    expect(got.cut.split('\n')).toHaveLength(21);
    // the lines `head` did not pass on are not claimed as shown
    expect(got.next.out).not.toMatch(/unchanged since an earlier read/);
    expect(status(dir)!.served).toBe(before.served + 2);
  });

  it('a reader slow to take the output holds the daemon no longer than the print wait: the output is whole, the read not recorded', async () => {
    const dir = daemonDir();
    const before = await started(dir, { SKIM_DAEMON_PRINT_WAIT_MS: '200' });
    const work = mkdtempSync(path.join(os.tmpdir(), 'skim-daemon-slow-'));
    const file = path.join(work, 'big.py');
    writeFileSync(file, `${Array.from({ length: 8_000 }, (_, i) => `def f${i}(x):\n    return x + ${i}`).join('\n')}\n`);
    const session = { SKIM_SESSION: 'slow', SKIM_SESSION_DIR: path.join(work, 'store') };
    // the reader starts only once the daemon is done with the request: it waited its 200 ms for
    // the print and gave up (an order of events, not a race against a sleep)
    const go = path.join(work, 'go');
    const slow = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" cat "${file}" | (while [ ! -e "${go}" ]; do sleep 0.05; done; cat)`], {
      cwd: ROOT,
      env: envFor(dir, session),
    });
    let out = '';
    slow.stdout!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => slow.on('close', (code) => resolve(code)));
    await until(() => status(dir)!.served === before.served + 1, 'the daemon finished the read without its print');
    writeFileSync(go, '');
    expect(await exited).toBe(0);
    expect(out).toBe(skim(['cat', file], null).out);
    const next = skim(['cat', file, '--focus', 'Which function returns x plus three?'], dir, { env: session });
    expect(next.out).not.toMatch(/unchanged since an earlier read/);
    expect(status(dir)!.served).toBe(before.served + 2);
  });

  it('keeps session memory as in-process calls do (env travels with the request)', async () => {
    const dir = daemonDir();
    await started(dir);
    const sessions = mkdtempSync(path.join(os.tmpdir(), 'skim-daemon-sess-'));
    // the second read asks another question (the same read asked again is served whole)
    const reads = (d: string | null, store: string) =>
      [Q, 'How is the level of a log handler set?'].map((q) =>
        skim(['cat', 'examples/logging.py', '--focus', q], d, { env: { SKIM_SESSION: 's1', SKIM_SESSION_DIR: store } }),
      );
    const want = reads(null, path.join(sessions, 'a'));
    const got = reads(dir, path.join(sessions, 'b'));
    expect(got).toEqual(want);
    expect(got[1].out).toMatch(/unchanged since an earlier read/);
  });

  it('serves concurrent clients, each its own answer', async () => {
    const dir = daemonDir();
    const before = await started(dir);
    const jobs: [string[], string?][] = [
      [['cat', 'examples/logging.py', '--focus', Q]],
      [['grep', '-n', 'records', 'examples', '--focus', Q]],
      [['prune', '-', '--query', Q, '--ratio', '4'], LOGGING],
      [['grep', 'no-such-text-anywhere', 'examples']],
      [['cat', 'examples/playground-lru_cache.go', '--focus', 'eviction']],
      [['prune', 'examples/logging.py', '--query', 'how are log levels set?']],
    ];
    const got = await Promise.all(jobs.map(([args, input]) => skimAsync(args, dir, input).done));
    jobs.forEach(([args, input], i) => expect(got[i]).toEqual(skim(args, null, { input })));
    expect(status(dir)!.served).toBe(before.served + jobs.length);
  });

  it('answers in process when the daemon is killed mid-request, with the stdin it had taken', async () => {
    const dir = daemonDir();
    const { pid } = await started(dir);
    const args = ['prune', '-', '--query', Q, '--ratio', '4'];
    // the daemon asks for stdin and waits for it: kill it there, then give the client its input
    const run = skimAsync(args, dir);
    await until(() => status(dir)?.waiting === 1, 'the request waits for stdin');
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 'the daemon is gone');
    run.child.stdin!.end(LOGGING);
    expect(await run.done).toEqual(skim(args, null, { input: LOGGING }));
  });

  it('a client slow to send stdin does not hold the others', async () => {
    const dir = daemonDir();
    const before = await started(dir);
    const slow = skimAsync(['grep', '-n', 'def '], dir);
    await until(() => status(dir)?.waiting === 1, 'the request waits for stdin');
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir)).toEqual(skim(args, null));
    expect(status(dir)!.served).toBe(before.served + 1);
    slow.child.stdin!.end(LOGGING);
    expect(await slow.done).toEqual(skim(['grep', '-n', 'def '], null, { input: LOGGING }));
    expect(status(dir)!.served).toBe(before.served + 2);
  });

  it('stops a daemon that does not answer in time and answers in process', async () => {
    const dir = daemonDir();
    const { pid } = await started(dir);
    process.kill(pid, 'SIGSTOP'); // accepts connections (the kernel does), answers nothing
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir, { env: { SKIM_DAEMON_TIMEOUT_MS: '300' } })).toEqual(skim(args, null));
    await until(() => !alive(pid), 'the daemon was stopped');
  });

  it('replaces a stale socket (its daemon died) with a new daemon, answering in process meanwhile', async () => {
    const dir = daemonDir();
    const { pid } = await started(dir);
    process.kill(pid, 'SIGKILL');
    await until(() => status(dir) === null, 'the old daemon is gone');
    const sock = readdirSync(dir).find((f) => f.endsWith('.sock'));
    expect(sock).toBeDefined(); // left behind
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir)).toEqual(skim(args, null));
    const next = await until(() => status(dir), 'a new daemon answers');
    expect(next.pid).not.toBe(pid);
  });

  it.each([
    ['a socket with group/other permissions', (_dir: string, sock: string) => chmodSync(sock, 0o666)],
    ['a socket owned by another user', (_dir: string, sock: string) => chownSync(sock, 12345, 12345)],
    ['a socket directory others can enter', (dir: string) => chmodSync(dir, 0o755)],
  ])('refuses %s: the CLI works in process and leaves it alone', async (_what, spoil) => {
    if (_what.includes('another user') && process.getuid?.() !== 0) return; // chown needs root
    const dir = daemonDir();
    const before = await started(dir);
    const sock = path.join(dir, readdirSync(dir).find((f) => f.endsWith('.sock'))!);
    spoil(dir, sock);
    const mode = statSync(sock).mode;
    const args = ['grep', '-n', 'records', 'examples', '--focus', Q];
    expect(skim(args, dir)).toEqual(skim(args, null));
    expect(statSync(sock).mode).toBe(mode);
    chmodSync(dir, 0o700);
    chownSync(sock, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
    chmodSync(sock, 0o600);
    expect(status(dir)).toEqual({ ...before, queued: 0, waiting: 0 }); // it was never asked
  });

  it('does not start in a socket directory that is not private', () => {
    const dir = daemonDir();
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir)).toEqual(skim(args, null));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('exits when a client of another build asks, and a daemon of that build takes over', async () => {
    const dir = daemonDir();
    const { pid } = await started(dir);
    // a setting read once at load is part of the build fingerprint, as the version and model are
    const other = { SKIM_ANALYSIS_CACHE: '0' };
    const args = ['prune', 'examples/logging.py', '--query', Q];
    expect(skim(args, dir, { env: other })).toEqual(skim(args, null));
    const next = await until(() => {
      const s = status(dir);
      return s && s.pid !== pid ? s : null;
    }, 'a daemon of the other build answers');
    expect(skim(args, dir, { env: other })).toEqual(skim(args, null));
    expect(status(dir)!.served).toBe(next.served + 1);
  });

  it('exits after its idle time (SKIM_DAEMON_IDLE_MS) and removes its socket', async () => {
    const dir = daemonDir();
    const { pid } = await started(dir, { SKIM_DAEMON_IDLE_MS: '3000' });
    await until(() => !alive(pid), 'the daemon exited');
    expect(socketIn(dir)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]); // nor its pid file
  });

  it('ignores a peer that does not speak its protocol, and goes on serving', async () => {
    const dir = daemonDir();
    const before = await started(dir);
    const sock = path.join(dir, readdirSync(dir).find((f) => f.endsWith('.sock'))!);
    await new Promise<void>((resolve) => {
      const c = net.connect(sock, () => c.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x71])));
      c.on('close', () => resolve());
      c.on('error', () => resolve());
    });
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir)).toEqual(skim(args, null));
    expect(status(dir)!.served).toBe(before.served + 1);
  });

  it('is off with SKIM_DAEMON=0: no daemon, no socket', () => {
    const dir = daemonDir();
    skim(['cat', 'examples/logging.py', '--focus', Q], dir, { env: { SKIM_DAEMON: '0' } });
    expect(existsSync(dir)).toBe(false);
    expect(skim(['daemon', 'status'], dir).code).toBe(1);
  });
});
