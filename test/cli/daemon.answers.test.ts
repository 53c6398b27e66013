/**
 * The per-user daemon behind `skim cat` / `grep` / `prune` (src/cli/daemon/) answers as in-process
 * work does: the same bytes, stderr, exit codes and session behaviour, for concurrent clients, a
 * client slow to send stdin and a peer that does not speak its protocol. One daemon serves the whole
 * file (each test counts the requests it served from where the test began); its lifecycle (a
 * killed, stale, foreign or idle daemon) is test/cli/daemon.lifecycle.test.ts's. Needs a built
 * dist/, as bin/skim.js does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BIN, built, envFor, inProcess, LOGGING, Q, ROOT, skim, skimAsync, status, until, useStartedDaemon } from '../helpers/daemon.js';

// Each test spawns tens of processes: on a loaded machine that takes minutes. The limit is there to
// catch a hang, not to time anything.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

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
  let dir = '';
  useStartedDaemon((d) => {
    dir = d;
  });

  it('answers every read command with the bytes, stderr and exit code of in-process work', async () => {
    const before = status(dir)!;
    for (const [what, args, input] of CASES) {
      const want = await inProcess(args, input);
      const got = skim(args, dir, { input });
      expect({ what, ...got }).toEqual({ what, ...want });
    }
    // every one of them was the daemon's work, not a fallback
    expect(status(dir)!.served).toBe(before.served + CASES.length);
  });

  it('a call it answers loads no ES module in the client (bin/skim.js and dist/skim-launch.cjs are CommonJS)', () => {
    const before = status(dir)!;
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

  it('records a read in the session only once its output reached the reader (`| head`), as in process', () => {
    const before = status(dir)!;
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

  it('keeps session memory as in-process calls do (env travels with the request)', () => {
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
    const before = status(dir)!;
    const jobs: [string[], string?][] = [
      [['cat', 'examples/logging.py', '--focus', Q]],
      [['grep', '-n', 'records', 'examples', '--focus', Q]],
      [['prune', '-', '--query', Q, '--ratio', '4'], LOGGING],
      [['grep', 'no-such-text-anywhere', 'examples']],
      [['cat', 'examples/playground-lru_cache.go', '--focus', 'eviction']],
      [['prune', 'examples/logging.py', '--query', 'how are log levels set?']],
    ];
    const got = await Promise.all(jobs.map(([args, input]) => skimAsync(args, dir, input).done));
    for (const [i, [args, input]] of jobs.entries()) expect(got[i]).toEqual(await inProcess(args, input));
    expect(status(dir)!.served).toBe(before.served + jobs.length);
  });

  it('a client slow to send stdin does not hold the others', async () => {
    const before = status(dir)!;
    const slow = skimAsync(['grep', '-n', 'def '], dir);
    await until(() => status(dir)?.waiting === 1, 'the request waits for stdin');
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir)).toEqual(await inProcess(args));
    expect(status(dir)!.served).toBe(before.served + 1);
    slow.child.stdin!.end(LOGGING);
    expect(await slow.done).toEqual(await inProcess(['grep', '-n', 'def '], LOGGING));
    expect(status(dir)!.served).toBe(before.served + 2);
  });

  it('ignores a peer that does not speak its protocol, and goes on serving', async () => {
    const before = status(dir)!;
    const sock = path.join(dir, readdirSync(dir).find((f) => f.endsWith('.sock'))!);
    await new Promise<void>((resolve) => {
      const c = net.connect(sock, () => c.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x71])));
      c.on('close', () => resolve());
      c.on('error', () => resolve());
    });
    const args = ['cat', 'examples/logging.py', '--focus', Q];
    expect(skim(args, dir)).toEqual(await inProcess(args));
    expect(status(dir)!.served).toBe(before.served + 1);
  });
});
