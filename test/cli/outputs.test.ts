/**
 * `skim run`, `skim out` and `skim show` as an agent's shell runs them: the pruned output on
 * stdout, the command's exit status, one-line messages on stderr, and markers a later
 * `skim show` expands byte for byte from the session on disk.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPruner } from '../../src/index.js';
import { createApp } from '../../src/server/app.js';
import { listen } from '../../src/server/listen.js';
import { inlineRunner } from '../../src/server/runner.js';
import { BIN, runSkim } from '../helpers/cli.js';

const ROOT = path.resolve(__dirname, '../..');
/** The built binary, for the tests of the real process (its bytes, a 1 GiB pipe). */
const ARGS = [BIN];
const FIXTURE = path.join(ROOT, 'examples/mini-swe-agent/pytest-caplog.txt');
const RUN = readFileSync(FIXTURE, 'utf8');
const REPLAY = `cat ${FIXTURE}; exit 1`;
const QUERY = 'Why does test_clear_resets_records fail after caplog.clear()?';
const HANDLE = /skim show ([0-9a-f]+):(\d+)-(\d+)\]/;

/** `skim ARGS` in this process, with a session directory of its own unless one is given. */
async function skim(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  const dir = opts.env?.SKIM_SESSION_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
  const r = await runSkim(args, { input: opts.input ?? '', env: { SKIM_SESSION: '', SKIM_SERVER: '', SKIM_SESSION_DIR: dir, ...opts.env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('skim run', () => {
  it('prints the pruned output, keeps the failure, exits with the command status; markers say nothing was stored without a session', async () => {
    const r = await skim(['run', '--focus', QUERY, '-c', REPLAY]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/\[skim: \d+ lines of passed tests omitted \(\d+-\d+\), not stored\]/);
    expect(r.stdout).toContain('E       AssertionError: records taken before clear() were emptied by it');
    expect(r.stdout).toContain('=================== 1 failed, 150 passed');
    expect(r.stdout.length).toBeLessThan(RUN.length / 3);
    expect(r.stderr).toBe('');
  });

  it('a read of one file without --focus prints the file as cat does, without a warning about it', async () => {
    const file = path.join(ROOT, 'examples/logging.py');
    const env = { SKIM_SESSION_DIR: mkdtempSync(path.join(os.tmpdir(), 'skim-out-')), SKIM_SESSION: 'reads' };
    for (const args of [
      ['--', 'cat', file],
      ['--', 'sed', '-n', '120,180p', file],
    ]) {
      const r = await skim(['run', ...args], { env });
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(spawnSync(args[1], args.slice(2), { encoding: 'utf8' }).stdout);
    }
  });

  it('with a session, a marker names a handle that skim show expands to the exact lines; a repeat run folds what it showed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
    const env = { SKIM_SESSION_DIR: dir, SKIM_SESSION: 'run-1' };
    const r = await skim(['run', '--focus', QUERY, '-c', REPLAY], { env });
    expect(r.status).toBe(1);
    const m = HANDLE.exec(r.stdout);
    expect(m).not.toBeNull();
    const [, handle, a, b] = m!;
    const shown = await skim(['show', `${handle}:${a}-${b}`], { env });
    expect(shown.status).toBe(0);
    const lines = RUN.split(/(?<=\n)/);
    expect(shown.stdout).toBe(lines.slice(Number(a) - 1, Number(b)).join(''));
    expect((await skim(['show', handle], { env })).stdout).toBe(RUN);
    // a range past the end: what there is, and a warning that says so
    const past = await skim(['show', `${handle}:${a}-99999`], { env });
    expect([past.status, past.stdout]).toEqual([0, lines.slice(Number(a) - 1).join('')]);
    expect(past.stderr).toBe(`skim: warning: output ${handle} has ${lines.length} lines: lines ${a}-${lines.length} shown\n`);
    // the same command again: what the agent was shown before is folded as such
    const again = await skim(['run', '--focus', QUERY, '-c', REPLAY], { env });
    expect(again.stdout).toMatch(/lines as in the previous run of this command omitted/);
    // another session does not have it; a malformed range is a usage error
    const other = await skim(['show', handle], { env: { SKIM_SESSION_DIR: dir, SKIM_SESSION: 'run-2' } });
    expect(other.status).toBe(66);
    expect(other.stderr).toBe(`skim: no output ${handle} in session run-2 (outputs are kept per session, the latest 32)\n`);
    expect((await skim(['show', `${handle}:9-3`], { env })).status).toBe(64);
    expect((await skim(['show', handle], { env: { SKIM_SESSION_DIR: dir } })).status).toBe(64);
  });

  it('with SKIM_SERVER set, a handle the server cannot give is looked up in the disk session skim run kept it in', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
    const env = { SKIM_SESSION_DIR: dir, SKIM_SESSION: 'run-1' };
    const [, handle, a, b] = HANDLE.exec((await skim(['run', '--focus', QUERY, '-c', REPLAY], { env })).stdout) ?? [];
    // nothing listens on the discard port: the server cannot answer
    const noServer = { ...env, SKIM_SERVER: 'http://127.0.0.1:9/' };
    const shown = await skim(['show', `${handle}:${a}-${b}`], { env: noServer });
    expect([shown.status, shown.stdout]).toEqual([
      0,
      RUN.split(/(?<=\n)/)
        .slice(Number(a) - 1, Number(b))
        .join(''),
    ]);
    const unknown = await skim(['show', '0123456789'], { env: noServer });
    expect(unknown.status).toBe(66);
    expect(unknown.stderr).toMatch(/^skim: cannot reach skim serve at http:\/\/127\.0\.0\.1:9\//);
  });

  it('skim show --server asks as the harness client: a harness that sends X-Skim-Client names it in SKIM_CLIENT', async () => {
    const app = createApp({ runner: inlineRunner(createPruner()), log: () => {} });
    const server = await listen(app, '127.0.0.1', 0);
    try {
      // the harness posts the agent's output under its client key
      const res = await fetch(`${server.url}/v1/prune`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-skim-client': 'platform-7' },
        body: JSON.stringify({ code: RUN, command: 'python3 -m pytest -v test_records.py', query: QUERY, session: 'run-9' }),
      });
      const [, handle, a, b] = HANDLE.exec((await res.json()).text) ?? [];
      const env = { SKIM_SERVER: server.url, SKIM_SESSION: 'run-9' };
      const lines = RUN.split(/(?<=\n)/)
        .slice(Number(a) - 1, Number(b))
        .join('');
      const shown = await skim(['show', `${handle}:${a}-${b}`], { env: { ...env, SKIM_CLIENT: 'platform-7' } });
      expect([shown.status, shown.stdout]).toEqual([0, lines]);
      expect((await skim(['show', `${handle}:${a}-${b}`, '--client', 'platform-7'], { env })).stdout).toBe(lines);
      // another client's session of the same id is not this one
      expect((await skim(['show', handle], { env: { ...env, SKIM_CLIENT: 'platform-8' } })).status).toBe(66);
    } finally {
      await server.close(1000);
    }
  });

  it('skim run inside skim run, one session: the inner one prints the output whole, the outer prunes it once and shows the failure', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
    const env = { SKIM_SESSION_DIR: dir, SKIM_SESSION: 'nested' };
    const inner = `node ${BIN} run --focus '${QUERY}' -c 'cat ${FIXTURE}; exit 1'`;
    const r = await skim(['run', '--focus', QUERY, '-c', inner], { env });
    expect(r.status).toBe(1);
    // the inner one's lines reached the outer skim, not the agent: nothing folds as shown before
    expect(r.stdout).not.toMatch(/shown earlier in this session|as in the previous run/);
    expect(r.stdout).toContain('E       AssertionError: records taken before clear() were emptied by it');
    expect(r.stdout.match(/^\[skim: /gm)?.length).toBe(1);
    const [, handle] = HANDLE.exec(r.stdout)!;
    expect((await skim(['show', handle], { env })).stdout).toBe(RUN);
    // a read inside skim run records nothing either: the agent saw what the outer skim printed of it
    const q = 'Where are the caplog records replaced instead of cleared?';
    await skim(['run', '--focus', q, '-c', `node ${BIN} cat examples/logging.py --focus '${q}'`], { env: { ...env, SKIM_DAEMON: '0' } });
    const read = await skim(['cat', 'examples/logging.py', '--focus', 'How does caplog.clear() reset the captured records and text?'], { env });
    expect(read.stdout).not.toContain('unchanged since an earlier read');
  });

  it('runs CMD ARGS without a shell; an unknown command exits 127 with one line on stderr', async () => {
    const r = await skim(['run', '--', 'printf', '%s\\n', 'a b', '$HOME']);
    expect([r.status, r.stdout]).toEqual([0, 'a b\n$HOME\n']);
    const missing = await skim(['run', '--', 'skim-no-such-command', '--flag']);
    expect(missing.status).toBe(127);
    expect(missing.stderr).toBe('skim run: skim-no-such-command: command not found\n');
    expect(missing.stdout).toBe('');
    expect((await skim(['run'])).status).toBe(64);
    // the command's own options before -- are read as skim's: the error says where they go
    const unmarked = await skim(['run', 'pytest', '-x']);
    expect([unmarked.status, unmarked.stdout]).toEqual([64, '']);
    expect(unmarked.stderr).toContain("unknown option '-x'");
    expect(unmarked.stderr).toContain('skim run [options] -- CMD ARGS...');
    // other usage errors do not get that hint
    expect((await skim(['run', '--timeout', 'soon', '--', 'true'])).stderr).not.toContain('go after --');
    expect((await skim(['run', '-c', 'true', '--', 'ls'])).status).toBe(64);
    const dir = await skim(['run', '--', os.tmpdir()]);
    expect([dir.status, dir.stderr]).toEqual([126, `skim run: ${os.tmpdir()}: cannot run (is a directory)\n`]);
    const plain = path.join(mkdtempSync(path.join(os.tmpdir(), 'skim-out-')), 'notes.txt');
    writeFileSync(plain, 'not a program\n');
    expect((await skim(['run', '--', plain])).stderr).toBe(`skim run: ${plain}: cannot run (permission denied)\n`);
  });

  it('a command that hangs is stopped at --timeout: exit 124, what it printed, and a warning', async () => {
    const r = await skim(['run', '--timeout', '0.5', '-c', 'echo started; sleep 300']);
    expect(r.status).toBe(124);
    expect(r.stdout).toBe('started\n');
    expect(r.stderr).toBe('skim: warning: command timed out after 0.5 s: its process group was stopped (exit 124)\n');
  });

  it('a time limit longer than a timer can hold (24.8 days) is a usage error, not a limit that fires at once', async () => {
    const long = await skim(['run', '--timeout', '3000000', '--', 'printf', 'ran']);
    expect([long.status, long.stdout]).toEqual([64, '']);
    expect(long.stderr).toContain('must be <= 2147483.647');
    expect((await skim(['run', '--timeout', '2147483', '--', 'printf', 'ran'])).stdout).toBe('ran');
    // skim serve's per-request limit (ms) likewise: it would fail every request open at once
    const serve = spawnSync(process.execPath, [...ARGS, 'serve', '--port', '0', '--timeout', '3000000000'], { cwd: ROOT, timeout: 60_000 });
    expect(serve.status).toBe(64);
    expect(serve.stderr.toString()).toContain('must be <= 2147483647');
  });

  it('binary output comes back whole, byte for byte', async () => {
    const r = spawnSync(process.execPath, [...ARGS, 'run', '-c', "printf 'a\\000b\\377\\n'; exit 3"], { cwd: ROOT, env: { ...process.env, SKIM_SESSION: '' } });
    expect(r.status).toBe(3);
    expect([...r.stdout]).toEqual([0x61, 0, 0x62, 0xff, 10]);
    expect(r.stderr.toString()).toContain('binary output: not pruned');
  });

  it('output that is not UTF-8: the kept lines and what skim show expands are the bytes the command printed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
    const env = { ...process.env, SKIM_SESSION_DIR: dir, SKIM_SESSION: 'latin1', SKIM_DAEMON: '0' };
    const script = 'import sys\nfor i in range(60):\n    sys.stdout.buffer.write(b"row %d caf\\xe9 value of the thing number %d in the table\\n" % (i, i))\n';
    const printed = spawnSync('python3', ['-c', script]).stdout;
    const r = spawnSync(process.execPath, [...ARGS, 'run', '--focus', 'row 17', '--', 'python3', '-c', script], { cwd: ROOT, env });
    expect(r.status).toBe(0);
    const m = HANDLE.exec(r.stdout.toString('latin1'));
    expect(m).not.toBeNull();
    const lines = printed.toString('latin1').split(/(?<=\n)/);
    const row17 = Buffer.from(lines[17], 'latin1');
    expect(r.stdout.includes(row17)).toBe(true);
    const [, handle, a, b] = m!;
    const shown = spawnSync(process.execPath, [...ARGS, 'show', `${handle}:${a}-${b}`], { cwd: ROOT, env });
    expect(shown.status).toBe(0);
    expect(shown.stdout.equals(Buffer.from(lines.slice(Number(a) - 1, Number(b)).join(''), 'latin1'))).toBe(true);
    expect(spawnSync(process.execPath, [...ARGS, 'show', handle], { cwd: ROOT, env }).stdout.equals(printed)).toBe(true);
  });

  it('1 GiB of output: its first and last lines are kept and pruned, a note stands for the middle, a warning says so, the status is the command’s', async () => {
    const script = 'import sys\nblock = (b"x" * 1023 + b"\\n") * 1024\nfor _ in range(1024):\n    sys.stdout.buffer.write(block)\n';
    const r = spawnSync(process.execPath, [...ARGS, 'run', '--', 'python3', '-c', script], {
      cwd: ROOT,
      env: { ...process.env, SKIM_SESSION: '' },
      maxBuffer: 1 << 28,
    });
    expect(r.status).toBe(0);
    // 16 MiB kept (the first and last 8,191 lines of 1,024 bytes), then pruned: alike lines fold
    const dropped = 1024 * 1024 * 1024 - 2 * 8191 * 1024;
    const out = r.stdout.toString();
    expect(out.length).toBeLessThan(64 * 1024);
    expect(out).toContain(`\n[skim: ${dropped} bytes of output not kept here (over the 16 MiB limit: its first and last lines are kept)]\n`);
    expect(out).toMatch(/more lines like/);
    expect(out.endsWith(`${'x'.repeat(1023)}\n`)).toBe(true);
    expect(r.stderr.toString()).toContain(
      `output over the 16 MiB limit: its first and last lines are shown, ${dropped} of its ${1024 * 1024 * 1024} bytes in between were not kept`,
    );
  }, 120_000);
});

describe('skim out', () => {
  it('prunes output piped in as skim run does, and exits 0', async () => {
    const r = await skim(['out', '--focus', QUERY, '--command', 'python3 -m pytest -v test_records.py', '--json'], { input: RUN });
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o.shape).toBe('pytest');
    expect(o.handle).toBeNull();
    expect(o.omitted.length).toBeGreaterThan(0);
    expect(o.text).toContain('AssertionError: records taken before clear()');
  });

  it('SKIM_OUTPUT_LIMIT: lines the harness cut from the first output are shown again in the second; a bad limit is a usage error', async () => {
    const failures = Array.from({ length: 400 }, (_, i) => `tests/test_mod.py::test_case_number_${i} FAILED`);
    const input = `collected 400 items\n\n${failures.join('\n')}\n===== 400 failed in 3.21s =====\n`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
    const env = { SKIM_SESSION_DIR: dir, SKIM_SESSION: 'limit', SKIM_OUTPUT_LIMIT: 'mini-swe-agent' };
    const args = ['out', '--command', 'pytest tests'];
    expect((await skim(args, { input, env })).stdout).toBe(input);
    const again = await skim(args, { input, env });
    expect(again.stdout).toMatch(/^\[skim: \d+ lines as in the previous run of this command omitted \(1-\d+\)/);
    expect(again.stdout).toContain('tests/test_mod.py::test_case_number_200 FAILED\n');
    // the tail the harness showed is not counted on: skim's own stderr after the output moves it
    expect(again.stdout).toContain('tests/test_mod.py::test_case_number_390 FAILED\n');
    // a JSON answer is not the text the limit measures: nothing of it counts as shown
    const jsonEnv = { ...env, SKIM_SESSION: 'limit-json' };
    await skim([...args, '--json'], { input, env: jsonEnv });
    expect((await skim(args, { input, env: jsonEnv })).stdout).not.toMatch(/as in the previous run/);
    const bad = await skim(['run', '--', 'printf', 'ran'], { env: { ...env, SKIM_OUTPUT_LIMIT: 'half' } });
    expect([bad.status, bad.stdout]).toEqual([64, '']);
  });
});

describe('skim prune --batch', () => {
  it('a line with command and no path is a command output; lines of one session share its outputs', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
    const batch = path.join(dir, 'in.jsonl');
    const line = (id: number, extra: Record<string, unknown>) => JSON.stringify({ id, code: RUN, command: 'pytest -v', query: QUERY, session: 's', ...extra });
    writeFileSync(batch, [line(1, {}), line(2, {}), line(3, { ratio: 4 })].join('\n') + '\n');
    const r = await skim(['prune', '--batch', batch]);
    expect(r.status).toBe(1);
    const [first, second, bad] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect([first.id, first.shape]).toEqual([1, 'pytest']);
    expect(first.text).toMatch(HANDLE);
    expect(second.text).toMatch(/lines as in the previous run of this command omitted/);
    expect(bad).toEqual({ id: 3, error: `line 3: ratio: not for a command's output (a request with "command" and no "path" is one)` });
  });

  it('SKIM_OUTPUT_LIMIT is the default limit of command lines as of file lines: a repeat folds only what the limit showed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-out-'));
    const write = (name: string, extra: Record<string, unknown>) => {
      const line = (id: number) => JSON.stringify({ id, code: RUN, command: 'pytest -v', query: QUERY, session: name, ...extra });
      writeFileSync(path.join(dir, name), `${line(1)}\n${line(2)}\n`);
      return path.join(dir, name);
    };
    const results = async (file: string, env: Record<string, string> = {}) =>
      (await skim(['prune', '--batch', file], { env })).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).text);
    const own = await results(write('own', { outputLimit: 'head:600' }));
    const fromEnv = await results(write('env', {}), { SKIM_OUTPUT_LIMIT: 'head:600' });
    const unlimited = await results(write('none', {}));
    expect(own[1]).not.toBe(unlimited[1]);
    expect(fromEnv).toEqual(own);
  });
});

describe('a command that reads one file', () => {
  it('skim run -- cat F and cat F | skim out are pruned as a read of F (the code pipeline, its markers and JSON)', async () => {
    const q = 'Where are the caplog records replaced instead of cleared?';
    const file = readFileSync(path.join(ROOT, 'examples/logging.py'), 'utf8');
    const ran = await runSkim(['run', '--json', '--focus', q, '--', 'cat', 'examples/logging.py'], { env: { SKIM_SESSION: '' } });
    const viaRun = JSON.parse(ran.stdout);
    expect(ran.status).toBe(0);
    expect(viaRun.language).toBe('python'); // a prune result, not an output's
    expect(viaRun.tokensOut).toBeLessThan(viaRun.tokensIn);
    const piped = await runSkim(['out', '--focus', q, '--command', 'cat examples/logging.py'], { input: file, env: { SKIM_SESSION: '' } });
    expect(piped.stdout).toBe(viaRun.text);
    expect(piped.stdout).toMatch(/^# \.\.\. \d+ lines omitted \(\d+-\d+\)$/m);
  });
});
