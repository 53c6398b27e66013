/**
 * Session memory for one-process-per-read shells: `skim cat` / `skim grep` / `skim prune` with
 * --session or SKIM_SESSION, kept on disk under SKIM_SESSION_DIR; batch lines with "session".
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISK_SESSION_LIMITS, openSession } from '../../src/tools/sessionStore.js';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'examples/logging.py');
const SEEN = /# \.\.\. (\d+) lines? unchanged since an earlier read \((\d+)-(\d+)\)/;
const ARGS = ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')];

function env(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', SKIM_SESSION_DIR: dir, ...extra };
}
function skim(args: string[], e: NodeJS.ProcessEnv, input = '') {
  const r = spawnSync(process.execPath, [...ARGS, ...args], { cwd: ROOT, input, encoding: 'utf8', env: e, maxBuffer: 1 << 26 });
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
  it("prints grep's output unchanged and remembers the lines it showed", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const plain = env(path.join(dir, 'none'));
    delete plain.SKIM_SESSION;
    const want = skim(['grep', 'def get_records\\|def clear', EXAMPLE], plain);
    expect(want.stdout.split('\n')).toHaveLength(3);
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'g-1' });
    const got = skim(['grep', 'def get_records\\|def clear', EXAMPLE], e);
    expect(got).toEqual(want);
    const stored = readdirSync(path.join(dir, 'store')).filter((f) => f.endsWith('.json'));
    expect(stored).toHaveLength(1);
    expect(readFileSync(path.join(dir, 'store', stored[0]), 'utf8')).toContain('def get_records(self, when');
  });
});

describe('skim cat --session', () => {
  it('a wider read folds what a window showed, a named range is shown in full, and an edit in between shows again', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const file = path.join(dir, 'logging.py');
    const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
    writeFileSync(file, lines.join('\n'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'run-1' });
    const first = skim(['cat', file, '--offset', '300', '--limit', '60'], e);
    expect(first.status).toBe(0);
    expect(first.stdout).not.toMatch(SEEN);
    const again = skim(['cat', file], e);
    // (the class header at 358 comes back for the unseen lines of its body after 359)
    const m = SEEN.exec(again.stdout)!;
    expect(Number(m[2])).toBeGreaterThanOrEqual(300);
    expect(Number(m[3])).toBeLessThanOrEqual(359);
    expect(Number(m[1])).toBeGreaterThan(40);
    expect(again.stdout).toContain('   280\t');
    // the range a marker names, asked for: those lines, in full
    const named = skim(['cat', file, '--offset', '315', '--limit', '15'], e);
    expect(named.stdout).not.toMatch(SEEN);
    expect(named.stdout.split('\n').slice(0, 15)).toEqual(lines.slice(314, 329).map((l, k) => `${String(315 + k).padStart(6)}\t${l}`));
    lines[329] += '  # edited';
    writeFileSync(file, lines.join('\n'));
    const edited = skim(['cat', file, '--offset', '300', '--limit', '60'], e);
    expect(edited.stdout).toContain('# edited');
    // another session has seen nothing
    const other = skim(['cat', file, '--offset', '300', '--limit', '60', '--session', 'run-2'], e);
    expect(other.stdout).not.toMatch(SEEN);
    expect(readdirSync(path.join(dir, 'store')).filter((f) => f.endsWith('.json'))).toHaveLength(2);
  });

  it('without a session nothing is stored', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const e = env(path.join(dir, 'store'));
    delete e.SKIM_SESSION;
    skim(['cat', EXAMPLE], e);
    expect(() => readdirSync(path.join(dir, 'store'))).toThrow();
  });

  it('concurrent calls of one session take turns: every read is remembered', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'par' });
    const windows = [1, 101, 201, 301];
    const outs = await Promise.all(windows.map((w) => skimAsync(['cat', EXAMPLE, '--offset', String(w), '--limit', '100'], e)));
    for (const o of outs) expect(o.status).toBe(0);
    const stored = (await openSession('par', () => {}, path.join(dir, 'store')))!;
    const text = readFileSync(EXAMPLE, 'utf8').split('\n');
    for (let n = 1; n <= 400; n++) expect(stored.memory.hasSeen(EXAMPLE, n, text[n - 1])).toBe(true);
    await stored.release();
  }, 60_000);

  it('--max-chars returns the whole file pruned to at most that many characters', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const r = skim(['cat', EXAMPLE, '--focus', 'Where are the caplog records replaced instead of cleared?', '--max-chars', '4000'], env(dir));
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeLessThanOrEqual(4000);
    expect(r.stdout).toContain('def reset(self)');
  });
});

describe('the on-disk store', () => {
  it('is bounded per session and starts afresh from a corrupt file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const s = (await openSession('big', () => {}, dir))!;
    for (let f = 0; f < DISK_SESSION_LIMITS.maxFiles + 10; f++) s.memory.recordLines(`f${f}.py`, [[1, 'x'.repeat(40_000)]]);
    await s.save();
    const again = (await openSession('big', () => {}, dir))!;
    expect(again.memory.size.files).toBeLessThanOrEqual(DISK_SESSION_LIMITS.maxFiles);
    expect(again.memory.size.chars).toBeLessThanOrEqual(DISK_SESSION_LIMITS.maxChars);
    await again.release();
    const name = readdirSync(dir).find((f) => f.endsWith('.json'))!;
    writeFileSync(path.join(dir, name), '{not json');
    const fresh = (await openSession('big', () => {}, dir))!;
    expect(fresh.memory.size.files).toBe(0);
    await fresh.release();
  });

  it('an unusable store costs only the memory, with a warning', async () => {
    const warnings: string[] = [];
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'skim-sess-')), 'a-file');
    writeFileSync(file, 'x');
    expect(await openSession('s', (w) => warnings.push(w), path.join(file, 'sub'))).toBeNull();
    expect(warnings[0]).toMatch(/not usable/);
  });
});

describe('skim prune --batch with sessions', () => {
  it('lines of one session share memory in file order; other sessions do not', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const batch = path.join(dir, 'in.jsonl');
    const line = (id: number, session: string) => JSON.stringify({ id, path: EXAMPLE, session });
    const focused = JSON.stringify({ id: 2, path: EXAMPLE, session: 'a', query: 'Where are the caplog records replaced instead of cleared?' });
    writeFileSync(batch, [line(1, 'a'), focused, line(3, 'b')].join('\n') + '\n');
    const r = skim(['prune', '--batch', batch], env(dir));
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
