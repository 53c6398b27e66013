/**
 * The daemon's lifecycle (src/cli/daemon/): any failure (a killed daemon, one that does not answer,
 * a stale or foreign socket, a socket directory that is not private, a daemon of another build)
 * leaves the CLI doing the work itself, with the bytes of in-process work; the daemon exits when
 * idle and is off with SKIM_DAEMON=0. Each test starts its own daemon (in its own socket
 * directory) and stops it, but for the three refusals, which leave theirs as they found it and share
 * one. Needs a built dist/, as bin/skim.js does.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  alive,
  BIN,
  built,
  daemonDir,
  envFor,
  inProcess,
  LOGGING,
  Q,
  ROOT,
  skim,
  skimAsync,
  socketIn,
  started,
  status,
  stopDaemons,
  until,
  useStartedDaemon,
} from '../helpers/daemon.js';

// Each test spawns tens of processes: on a loaded machine that takes minutes. The limit is there to
// catch a hang, not to time anything.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

describe.skipIf(!built)('the daemon', () => {
  afterEach(() => stopDaemons());

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
    expect(out).toBe((await inProcess(['cat', file])).out);
    const next = skim(['cat', file, '--focus', 'Which function returns x plus three?'], dir, { env: session });
    expect(next.out).not.toMatch(/unchanged since an earlier read/);
    expect(status(dir)!.served).toBe(before.served + 2);
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
    expect(await run.done).toEqual(await inProcess(args, LOGGING));
  });

  it('stops a daemon that does not answer in time and answers in process', async () => {
    const dir = daemonDir();
    const { pid } = await started(dir);
    process.kill(pid, 'SIGSTOP'); // accepts connections (the kernel does), answers nothing
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir, { env: { SKIM_DAEMON_TIMEOUT_MS: '300' } })).toEqual(await inProcess(args));
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
    expect(skim(args, dir)).toEqual(await inProcess(args));
    const next = await until(() => status(dir), 'a new daemon answers');
    expect(next.pid).not.toBe(pid);
  });

  it('does not start in a socket directory that is not private', async () => {
    const dir = daemonDir();
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir)).toEqual(await inProcess(args));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('exits when a client of another build asks, and a daemon of that build takes over', async () => {
    const dir = daemonDir();
    const { pid } = await started(dir);
    // a setting read once at load is part of the build fingerprint, as the version and model are
    const other = { SKIM_ANALYSIS_CACHE: '0' };
    const args = ['prune', 'examples/logging.py', '--query', Q];
    expect(skim(args, dir, { env: other })).toEqual(await inProcess(args));
    const next = await until(() => {
      const s = status(dir);
      return s && s.pid !== pid ? s : null;
    }, 'a daemon of the other build answers');
    expect(skim(args, dir, { env: other })).toEqual(await inProcess(args));
    expect(status(dir)!.served).toBe(next.served + 1);
  });

  it('exits after its idle time (SKIM_DAEMON_IDLE_MS) and removes its socket', async () => {
    const dir = daemonDir();
    // the daemon's pid from the file it writes beside its socket: no `skim daemon status`, which
    // would restart its idle time
    skim(['cat', 'examples/logging.py', '--focus', Q], dir, { env: { SKIM_DAEMON_IDLE_MS: '1500' } });
    const pid = await until(() => {
      const file = readdirSync(dir).find((f) => f.endsWith('.pid'));
      return file ? Number(readFileSync(path.join(dir, file), 'utf8')) : 0;
    }, 'the daemon writes its pid');
    await until(() => !alive(pid), 'the daemon exited');
    expect(socketIn(dir)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]); // nor its pid file
  });

  it('is off with SKIM_DAEMON=0: no daemon, no socket', () => {
    const dir = daemonDir();
    skim(['cat', 'examples/logging.py', '--focus', Q], dir, { env: { SKIM_DAEMON: '0' } });
    expect(existsSync(dir)).toBe(false);
    expect(skim(['daemon', 'status'], dir).code).toBe(1);
  });
});

describe.skipIf(!built)('the daemon, with a socket or socket directory that is not private', () => {
  // one daemon for the three: each test puts its socket and directory back as they were
  let dir = '';
  useStartedDaemon((d) => {
    dir = d;
  });

  it.each([
    ['a socket with group/other permissions', (_dir: string, sock: string) => chmodSync(sock, 0o666)],
    ['a socket owned by another user', (_dir: string, sock: string) => chownSync(sock, 12345, 12345)],
    ['a socket directory others can enter', (dir: string) => chmodSync(dir, 0o755)],
  ])('refuses %s: the CLI works in process and leaves it alone', async (_what, spoil) => {
    if (_what.includes('another user') && process.getuid?.() !== 0) return; // chown needs root
    const before = status(dir)!;
    const sock = path.join(dir, readdirSync(dir).find((f) => f.endsWith('.sock'))!);
    spoil(dir, sock);
    const mode = statSync(sock).mode;
    const args = ['grep', '-n', 'records', 'examples', '--focus', Q];
    expect(skim(args, dir)).toEqual(await inProcess(args));
    expect(statSync(sock).mode).toBe(mode);
    chmodSync(dir, 0o700);
    chownSync(sock, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
    chmodSync(sock, 0o600);
    expect(status(dir)).toEqual({ ...before, queued: 0, waiting: 0 }); // it was never asked
  });
});
