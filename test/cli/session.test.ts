/**
 * Session memory for one-process-per-read shells: `skim cat` / `skim grep` / `skim prune` with
 * --session or SKIM_SESSION, kept on disk under SKIM_SESSION_DIR; batch lines with "session".
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISK_SESSION_LIMITS, openSession } from '../../src/tools/sessionStore.js';
import { BIN, ROOT, runSkim } from '../helpers/cli.js';

const EXAMPLE = path.join(ROOT, 'examples/logging.py');
const SEEN = /# \.\.\. (\d+) lines? unchanged since an earlier read \((\d+)-(\d+)\)/;

function env(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', SKIM_SESSION_DIR: dir, ...extra };
}
/** The command in-process with the environment `e` (SKIM_SESSION only when `e` has it). */
async function skim(args: string[], e: NodeJS.ProcessEnv, input = '') {
  const r = await runSkim(args, { input, env: { ...e, SKIM_SESSION: e.SKIM_SESSION } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
/** The built binary as a process: concurrent processes of one session take turns on its file. */
function skimProcess(args: string[], e: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: e });
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
  it('a second read of a window folds what the first showed, and an edit in between shows again', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const file = path.join(dir, 'logging.py');
    const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
    writeFileSync(file, lines.join('\n'));
    const e = env(path.join(dir, 'store'), { SKIM_SESSION: 'run-1' });
    const first = await skim(['cat', file, '--offset', '300', '--limit', '60'], e);
    expect(first.status).toBe(0);
    expect(first.stdout).not.toMatch(SEEN);
    const again = await skim(['cat', file, '--offset', '280', '--limit', '100'], e);
    // (the class header at 358 comes back for the unseen lines of its body after 359)
    const m = SEEN.exec(again.stdout)!;
    expect(Number(m[2])).toBeGreaterThanOrEqual(300);
    expect(Number(m[3])).toBeLessThanOrEqual(359);
    expect(Number(m[1])).toBeGreaterThan(40);
    expect(again.stdout).toContain('   280\t');
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
    const outs = await Promise.all(windows.map((w) => skimProcess(['cat', EXAMPLE, '--offset', String(w), '--limit', '100'], e)));
    for (const o of outs) expect(o.status).toBe(0);
    const all = await skim(['cat', EXAMPLE, '--offset', '1', '--limit', '400'], e);
    expect(all.stdout).toMatch(/# \.\.\. 400 lines unchanged since an earlier read \(1-400\)/);
  }, 60_000);

  it('--max-chars returns the whole file pruned to at most that many characters', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const r = await skim(['cat', EXAMPLE, '--focus', 'Where are the caplog records replaced instead of cleared?', '--max-chars', '4000'], env(dir));
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
  it('lines of one session share memory in file order; other sessions do not', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'skim-sess-'));
    const batch = path.join(dir, 'in.jsonl');
    const line = (id: number, session: string) => JSON.stringify({ id, path: EXAMPLE, session });
    writeFileSync(batch, [line(1, 'a'), line(2, 'a'), line(3, 'b')].join('\n') + '\n');
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
