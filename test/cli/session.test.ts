/**
 * Session memory for one-process-per-read shells: `skim cat` / `skim grep` / `skim prune` with
 * --session or SKIM_SESSION, kept on disk under SKIM_SESSION_DIR; batch lines with "session".
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { beginRead, DISK_SESSION_LIMITS } from '../../src/tools/sessionStore.js';
import { BIN, runSkim } from '../helpers/cli.js';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'examples/logging.py');
/** Lines as `cat -n` prints them. */
const numbered = (ls: string[]) => ls.map((l, k) => `${String(k + 1).padStart(6)}\t${l}\n`).join('');
const SEEN = /# \.\.\. (\d+) lines? unchanged since an earlier read \((\d+)-(\d+)\)/;
/** The "unchanged since an earlier read" markers of an output. */
const seenMarkers = (stdout: string) =>
  stdout
    .split('\n')
    .map((l) => SEEN.exec(l))
    .filter((m) => m !== null);
/** The built binary, for the tests that need processes of their own (concurrent reads, a pipe cut short). */
const ARGS = [BIN];

function env(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', SKIM_SESSION_DIR: dir, ...extra };
}
/** `skim ARGS` in this process with exactly the environment `e`. */
async function skim(args: string[], e: NodeJS.ProcessEnv, input = '') {
  const unset = Object.fromEntries(Object.keys(process.env).flatMap((k) => (k in e ? [] : [[k, undefined]])));
  const r = await runSkim(args, { input, env: { ...unset, ...e } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
function skimAsync(args: string[], e: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...ARGS, ...args], { cwd: ROOT, env: e });
    let stdout = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.on('close', (status) => resolve({ status, stdout }));
  });
}

describe('skim grep with a session and no --focus', () => {
  it("prints grep's output unchanged and remembers the lines it showed", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const plain = env(path.join(dir, 'none'));
    delete plain.SKIM_SESSION;
    const want = await skim(['grep', 'def get_records\\|def clear', EXAMPLE], plain);
    expect(want.stdout.split('\n')).toHaveLength(3);
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'g-1' });
    const got = await skim(['grep', 'def get_records\\|def clear', EXAMPLE], e);
    expect(got).toEqual(want);
    const stored = readdirSync(path.join(dir, 'store')).filter((f) => f.endsWith('.json'));
    expect(stored).toHaveLength(1);
    expect(readFileSync(path.join(dir, 'store', stored[0]), 'utf8')).toContain('def get_records(self, when');
  });
});

describe('skim cat --session', () => {
  it('a wider read folds what a window showed, a named range is shown in full, and an edit in between shows again', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const file = path.join(dir, 'logging.py');
    const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
    writeFileSync(file, lines.join('\n'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'run-1' });
    const first = await skim(['cat', file, '--offset', '300', '--limit', '60'], e);
    expect(first.status).toBe(0);
    expect(first.stdout).not.toMatch(SEEN);
    const again = await skim(['cat', file], e);
    // (the class header at 358 comes back for the unseen lines of its body after 359)
    const m = SEEN.exec(again.stdout)!;
    expect(Number(m[2])).toBeGreaterThanOrEqual(300);
    expect(Number(m[3])).toBeLessThanOrEqual(359);
    expect(Number(m[1])).toBeGreaterThan(40);
    expect(again.stdout).toContain('   280\t');
    // the range a marker names, asked for: those lines, in full
    const named = await skim(['cat', file, '--offset', '315', '--limit', '15'], e);
    expect(named.stdout).not.toMatch(SEEN);
    expect(named.stdout.split('\n').slice(0, 15)).toEqual(lines.slice(314, 329).map((l, k) => `${String(315 + k).padStart(6)}\t${l}`));
    lines[329] += '  # edited';
    writeFileSync(file, lines.join('\n'));
    const edited = await skim(['cat', file, '--offset', '300', '--limit', '60'], e);
    expect(edited.stdout).toContain('# edited');
    // another session has seen nothing
    const other = await skim(['cat', file, '--offset', '300', '--limit', '60', '--session', 'run-2'], e);
    expect(other.stdout).not.toMatch(SEEN);
    expect(readdirSync(path.join(dir, 'store')).filter((f) => f.endsWith('.json'))).toHaveLength(2);
  });

  it('without a session nothing is stored', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const e = env(path.join(dir, 'store'));
    delete e.SKIM_SESSION;
    await skim(['cat', EXAMPLE], e);
    expect(() => readdirSync(path.join(dir, 'store'))).toThrow();
  });

  it('concurrent calls of one session take turns: every read is remembered', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'par' });
    const windows = [1, 101, 201, 301];
    const outs = await Promise.all(windows.map((w) => skimAsync(['cat', EXAMPLE, '--offset', String(w), '--limit', '100'], e)));
    for (const o of outs) expect(o.status).toBe(0);
    const stored = (await beginRead('par', () => {}, path.join(dir, 'store')))!;
    const text = readFileSync(EXAMPLE, 'utf8').split('\n');
    for (let n = 1; n <= 400; n++) expect(stored.memory.hasSeen(EXAMPLE, n, text[n - 1])).toBe(true);
    await stored.commit();
  }, 60_000);

  it('--max-chars returns the whole file pruned to at most that many characters', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const r = await skim(['cat', EXAMPLE, '--focus', 'Where are the caplog records replaced instead of cleared?', '--max-chars', '4000'], env(dir));
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeLessThanOrEqual(4000);
    expect(r.stdout).toMatch(/^ {6}\t# \.\.\. \d+ lines omitted/m);
    // the records' reset: where clear() replaces them (the budget spends its room on the fixture's
    // methods around it; the handler's own `def reset` is the next line it would take)
    expect(r.stdout).toContain('self.handler.reset()');
  });
});

describe('skim cat --session: one file, however it is named', () => {
  it('a relative path and a symlink name the file an absolute path read', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const file = path.join(dir, 'logging.py');
    writeFileSync(file, readFileSync(EXAMPLE, 'utf8'));
    symlinkSync(file, path.join(dir, 'link.py'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'names' });
    await skim(['cat', file], e);
    const viaRelative = await skim(['cat', path.relative(ROOT, file), '--focus', 'Where are caplog records cleared?'], e);
    expect(viaRelative.stdout).toMatch(SEEN);
    const viaLink = await skim(['cat', path.join(dir, 'link.py'), '--focus', 'Where are caplog records reset?'], e);
    expect(viaLink.stdout).toMatch(SEEN);
  }, 60_000);
});

describe('skim session forget', () => {
  it("after the agent's context was compacted, nothing folds until shown again (one file, or all)", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const other = path.join(dir, 'other.py');
    writeFileSync(other, readFileSync(EXAMPLE, 'utf8'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'fg' });
    await skim(['cat', EXAMPLE], e);
    await skim(['cat', other], e);
    const q = (n: number) => ['--focus', `Where are caplog records cleared? (${n})`];
    expect((await skim(['cat', EXAMPLE, ...q(1)], e)).stdout).toMatch(SEEN);
    expect((await skim(['session', 'forget', 'fg', '--path', EXAMPLE], e)).status).toBe(0);
    expect((await skim(['cat', EXAMPLE, ...q(2)], e)).stdout).not.toMatch(SEEN);
    expect((await skim(['cat', other, ...q(3)], e)).stdout).toMatch(SEEN);
    expect((await skim(['session', 'forget'], e)).status).toBe(0); // SKIM_SESSION, all files
    expect((await skim(['cat', other, ...q(4)], e)).stdout).not.toMatch(SEEN);
    expect((await skim(['session', 'forget'], { ...e, SKIM_SESSION: '' })).status).toBe(64);
  }, 60_000);
});

describe('the on-disk store', () => {
  it('is bounded per session and starts afresh from a corrupt file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const s = (await beginRead('big', () => {}, dir))!;
    for (let f = 0; f < DISK_SESSION_LIMITS.maxFiles + 10; f++) s.memory.recordLines(`f${f}.py`, [[1, 'x'.repeat(40_000)]]);
    await s.commit();
    const again = (await beginRead('big', () => {}, dir))!;
    expect(again.memory.size.files).toBeLessThanOrEqual(DISK_SESSION_LIMITS.maxFiles);
    expect(again.memory.size.chars).toBeLessThanOrEqual(DISK_SESSION_LIMITS.maxChars);
    await again.commit();
    const name = readdirSync(dir).find((f) => f.endsWith('.json'))!;
    writeFileSync(path.join(dir, name), '{not json');
    const fresh = (await beginRead('big', () => {}, dir))!;
    expect(fresh.memory.size.files).toBe(0);
    await fresh.commit();
  });

  it('an unusable store costs only the memory, with a warning', async () => {
    const warnings: string[] = [];
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'skim-sess-')), 'a-file');
    writeFileSync(file, 'x');
    expect(await beginRead('s', (w) => warnings.push(w), path.join(file, 'sub'))).toBeNull();
    expect(warnings[0]).toMatch(/not usable/);
  });
});

describe('skim prune --batch with sessions', () => {
  it('lines of one session share memory in file order; other sessions do not', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const batch = path.join(dir, 'in.jsonl');
    const line = (id: number, session: string) => JSON.stringify({ id, path: EXAMPLE, session });
    const focused = JSON.stringify({ id: 2, path: EXAMPLE, session: 'a', query: 'Where are the caplog records replaced instead of cleared?' });
    writeFileSync(batch, [line(1, 'a'), focused, line(3, 'b')].join('\n') + '\n');
    const r = await skim(['prune', '--batch', batch], env(dir));
    expect(r.status).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out[0].text).not.toMatch(SEEN);
    expect(out[1].text).toMatch(SEEN);
    expect(out[1].seenLines).toBeGreaterThan(800);
    expect(out[2].text).not.toMatch(SEEN);
  });
});

describe('skim cat --session records only what reached the agent', () => {
  /** A file long enough that its output does not fit a pipe's buffer. */
  const big = (edit = '') => Array.from({ length: 8_000 }, (_, i) => `def f${i}(x):\n    return x + ${i}${i === 3 ? edit : ''}`).join('\n') + '\n';
  const locks = (store: string) => readdirSync(store).filter((f) => f.endsWith('.lock'));
  const Q = ['--focus', 'Which function returns x plus three?'];

  it('`| head -20` then the next range: those lines are shown, not folded', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'head' });
    const cmd = `"${process.execPath}" ${ARGS.map((a) => `"${a}"`).join(' ')} cat "${EXAMPLE}" | head -20`;
    const first = spawnSync('sh', ['-c', cmd], { cwd: ROOT, env: e, encoding: 'utf8' });
    expect(first.stdout.split('\n')).toHaveLength(21);
    const next = await skim(['cat', EXAMPLE, '--offset', '21', '--limit', '30'], e);
    const want = readFileSync(EXAMPLE, 'utf8').split('\n').slice(20, 50);
    expect(next.stdout).toBe(want.map((l, k) => `${String(21 + k).padStart(6)}\t${l}\n`).join(''));
  });

  it('SKIM_OUTPUT_LIMIT: a long read with a goal hint fits what the harness shows whole, warning included; without a hint it is left whole', async () => {
    const e = { SKIM_OUTPUT_LIMIT: 'mini-swe-agent' };
    const fitted = await skim(['cat', EXAMPLE, '--focus', 'Where are the caplog records replaced instead of cleared?'], e);
    expect(fitted.status).toBe(0);
    // what mini-swe-agent shows whole: stdout and stderr together under 10,000 characters
    expect(fitted.stdout.length + fitted.stderr.length).toBeLessThan(10_000);
    expect(fitted.stdout).toContain('   344\t    def reset(self) -> None:\n');
    expect(fitted.stderr).toMatch(/pruned to fit the harness's output limit \(9500 characters/);
    const whole = await skim(['cat', EXAMPLE], e);
    expect(whole.stdout.length).toBeGreaterThan(10_000);
    // a file the harness shows whole (numbered, under 10,000 characters) is not fitted, though over 9,500
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-fit-'));
    const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
    let n = 0;
    while (numbered(lines.slice(0, n + 1)).length < 9_900) n++;
    expect(numbered(lines.slice(0, n)).length).toBeGreaterThan(9_500);
    writeFileSync(path.join(dir, 'under.py'), lines.slice(0, n).join('\n'));
    const under = await skim(['cat', path.join(dir, 'under.py'), '--focus', 'Where are the caplog records replaced instead of cleared?'], e);
    expect(under.stderr).not.toMatch(/to fit/);
    // two files: the first, printed whole (too short to prune), counts against what the second is fitted to
    const small = path.join(dir, 'small.py');
    writeFileSync(small, lines.slice(0, 35).join('\n'));
    const both = await skim(['cat', small, EXAMPLE, '--focus', 'Where are the caplog records replaced instead of cleared?'], e);
    expect(both.stdout).toContain(`==> ${small} <==`);
    expect(both.stderr).toMatch(/to fit/);
    expect(both.stdout.length + both.stderr.length).toBeLessThan(10_000);
    // three long files share the limit: each is fitted to its part, and the whole answer fits
    const copies = [1, 2, 3].map((k) => path.join(dir, `copy${k}.py`));
    for (const c of copies) writeFileSync(c, readFileSync(EXAMPLE));
    const three = await skim(['cat', ...copies, '--focus', 'Where are the caplog records replaced instead of cleared?'], e);
    for (const c of copies) expect(three.stdout).toContain(`==> ${c} <==`);
    expect(three.stderr.match(/to fit/g)?.length).toBe(3);
    expect(three.stdout.length + three.stderr.length).toBeLessThan(10_000);
    // --json answers are read by programs, whole
    const json = await skim(['prune', EXAMPLE, '--query', 'Where are the caplog records replaced?', '--threshold', '0.000001', '--json'], e);
    expect(JSON.parse(json.stdout).text.length).toBeGreaterThan(10_000);
    expect(json.stderr).not.toMatch(/to fit/);
  });

  it('SKIM_OUTPUT_LIMIT: lines beyond what the harness shows are not remembered; a bad value is a usage error', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const file = path.join(dir, 'big.py');
    writeFileSync(file, big());
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'lim', SKIM_OUTPUT_LIMIT: 'head:3000' });
    const first = await skim(['cat', file], e);
    const shownLines = first.stdout.slice(0, 3000).split('\n').length - 1;
    const again = await skim(['cat', file, ...Q], e);
    const folded = seenMarkers(again.stdout);
    expect(folded.length).toBeGreaterThan(0);
    for (const m of folded) expect(Number(m[3])).toBeLessThanOrEqual(shownLines);
    // a head+tail cut: skim's warnings on stderr follow the read and move the tail, so only the head counts
    const cut = env(path.join(dir, 'store-cut'), { SKIM_SESSION: 'cut', SKIM_OUTPUT_LIMIT: 'head+tail:3000' });
    const headLines = (await skim(['cat', file], cut)).stdout.slice(0, 1500).split('\n').length - 1;
    const foldedAfterCut = seenMarkers((await skim(['cat', file, ...Q], cut)).stdout);
    expect(foldedAfterCut.length).toBeGreaterThan(0);
    for (const m of foldedAfterCut) expect(Number(m[3])).toBeLessThanOrEqual(headLines);
    // a JSON answer is not the text the limit measures: nothing of it counts as shown
    const json = env(path.join(dir, 'store-json'), { SKIM_SESSION: 'json', SKIM_OUTPUT_LIMIT: 'head:3000' });
    const pruned = await skim(['prune', file, '--query', 'Which function returns x plus three?', '--ratio', '2', '--json'], json);
    expect(JSON.parse(pruned.stdout).text).toMatch(/^def f0\(x\):\n/);
    expect((await skim(['cat', file], json)).stdout).not.toMatch(SEEN);
    const bad = await skim(['cat', file], { ...e, SKIM_OUTPUT_LIMIT: 'lots' });
    expect(bad.status).toBe(64);
    expect(bad.stderr).toMatch(/SKIM_OUTPUT_LIMIT must be/);
  });

  it.each([
    ['the reader goes away (EPIPE)', 'epipe'],
    ['the process is ended mid-write (SIGTERM)', 'sigterm'],
  ])(
    '%s: no lock is left, the next read does not wait, and nothing it may have shown is claimed',
    async (_name, how) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
      const store = path.join(dir, 'store');
      const file = path.join(dir, 'big.py');
      const e = env(store, { SKIM_SESSION: how });
      writeFileSync(file, big());
      expect((await skim(['cat', file], e)).status).toBe(0);
      // the file changes; a read of all of it (a named range: shown in full) is cut off after its
      // first bytes reached the reader
      writeFileSync(file, big('  # changed'));
      await new Promise<void>((resolve) => {
        const p = spawn(process.execPath, [...ARGS, 'cat', file, '--offset', '1', '--limit', '16000'], { cwd: ROOT, env: e });
        p.stdout.once('data', () => {
          if (how === 'epipe') p.stdout.destroy();
          else {
            p.stdout.pause();
            p.kill('SIGTERM');
          }
        });
        p.on('close', () => resolve());
      });
      expect(locks(store)).toEqual([]);
      // changed back: its earlier text would match, but the agent's latest copy of line 4 differs
      writeFileSync(file, big());
      const next = await skim(['cat', file, ...Q], e);
      expect(next.stderr).not.toMatch(/held it/);
      expect(next.stdout).not.toMatch(SEEN);
    },
    60_000,
  );
});
