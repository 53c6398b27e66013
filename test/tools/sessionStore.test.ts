/**
 * The on-disk session store owns only what it made: it refuses a folder that holds other files,
 * never deletes a name it did not make, and writes through an exclusive 0600 temporary file.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { beginRead, STORE_MARKER } from '../../src/tools/sessionStore.js';

// Temporary names are random; a fixed "random" lets the test plant a symlink at the exact name.
vi.mock('node:crypto', async (importOriginal) => ({ ...(await importOriginal<typeof import('node:crypto')>()), randomBytes: (n: number) => Buffer.alloc(n) }));

const tmpDir = () => mkdtempSync(path.join(os.tmpdir(), 'skim-store-'));
const twoDaysAgo = () => new Date(Date.now() - 2 * 24 * 3600 * 1000);

describe('the session store', () => {
  it("refuses a folder holding a user's files, and deletes none of them", async () => {
    const dir = tmpDir();
    for (let i = 0; i < 70; i++) writeFileSync(path.join(dir, `data-${i}.json`), `{"i":${i}}`);
    utimesSync(path.join(dir, 'data-0.json'), twoDaysAgo(), twoDaysAgo());
    const warnings: string[] = [];
    const s = await beginRead('run', (w) => warnings.push(w), dir);
    await s?.commit();
    expect(readdirSync(dir).filter((f) => f.startsWith('data-'))).toHaveLength(70);
    expect(s).toBeNull();
    expect(warnings.join('\n')).toMatch(/not empty and not a skim session store/);
  });

  it('makes a new or empty folder its own, and its cleanup passes over names it did not make', async () => {
    const dir = path.join(tmpDir(), 'store');
    const s = (await beginRead('a', () => {}, dir))!;
    s.memory.recordLines('x.py', [[1, 'x = 1']]);
    await s.commit();
    expect(readdirSync(dir)).toContain(STORE_MARKER);
    const own = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(own).toHaveLength(1);
    expect(statSync(path.join(dir, own[0])).mode & 0o777).toBe(0o600);
    // a user's file dropped in the store later, old: still there after the next save's sweep
    writeFileSync(path.join(dir, 'notes.json'), '{}');
    utimesSync(path.join(dir, 'notes.json'), twoDaysAgo(), twoDaysAgo());
    // the store's own session unused for two days goes
    utimesSync(path.join(dir, own[0]), twoDaysAgo(), twoDaysAgo());
    await (await beginRead('b', () => {}, dir))!.commit();
    const after = readdirSync(dir);
    expect(after).toContain('notes.json');
    expect(after).not.toContain(own[0]);
  });

  it('does not follow a symlink planted at its temporary file name', async () => {
    const dir = tmpDir();
    const store = path.join(dir, 'store');
    mkdirSync(store);
    writeFileSync(path.join(store, '.skim-session-store'), '');
    const victim = path.join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const hash = createHash('sha256').update('run').digest('hex').slice(0, 32);
    // the name this store's save uses (random part fixed above), and the name earlier versions used
    symlinkSync(victim, path.join(store, `skim-session-${hash}.${process.pid}-${'0'.repeat(16)}.tmp`));
    symlinkSync(victim, path.join(store, `${hash}.json.${process.pid}.tmp`));
    const warnings: string[] = [];
    const s = await beginRead('run', (w) => warnings.push(w), store);
    s?.memory.recordLines('x.py', [[1, 'x = 1']]);
    await s?.commit();
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(warnings.join('\n')).toMatch(/not usable|could not save/);
  });
});

describe('reads of one session', () => {
  const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
  const hashOf = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 32);

  it('a lock left by a process that is gone is broken at once', async () => {
    const dir = path.join(tmpDir(), 'store');
    await (await beginRead('run', () => {}, dir))!.commit();
    writeFileSync(path.join(dir, `skim-session-${hashOf('run')}.lock`), String(deadPid()));
    const warnings: string[] = [];
    const r = await beginRead('run', (w) => warnings.push(w), dir);
    expect(r).not.toBeNull();
    expect(warnings).toEqual([]);
    await r!.commit();
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('reads in parallel add up; a read that was not shown makes the session forget its files; a read whose process died, all', async () => {
    const dir = path.join(tmpDir(), 'store');
    const [a, b] = await Promise.all([beginRead('s', () => {}, dir), beginRead('s', () => {}, dir)]);
    a!.memory.recordLines('a.py', [[1, 'a = 1']]);
    b!.memory.recordLines('b.py', [[1, 'b = 1']]);
    await Promise.all([b!.commit(), a!.commit()]);
    const c = (await beginRead('s', () => {}, dir))!;
    expect(c.memory.hasSeen('a.py', 1, 'a = 1') && c.memory.hasSeen('b.py', 1, 'b = 1')).toBe(true);
    c.memory.recordLines('a.py', [[1, 'a = 2']]); // shown in part, then the reader went away
    await c.abort();
    const d = (await beginRead('s', () => {}, dir))!;
    expect(d.memory.hasSeen('a.py', 1, 'a = 1')).toBe(false);
    expect(d.memory.hasSeen('a.py', 1, 'a = 2')).toBe(false);
    expect(d.memory.hasSeen('b.py', 1, 'b = 1')).toBe(true);
    await d.commit();
    // a read begun by a process that then died (SIGKILL, SIGTERM mid-write): it said nothing
    const killed = (await beginRead('s', () => {}, dir, { pid: deadPid() }))!;
    killed.memory.recordLines('b.py', [[1, 'b = 2']]);
    const e = (await beginRead('s', () => {}, dir))!;
    expect(e.memory.size.files).toBe(0);
    await e.commit();
  });
});

describe('a store folder that cannot be made', () => {
  it.runIf(process.platform === 'linux')('under /proc: the read goes on without memory at once, with a warning naming the folder', async () => {
    const warnings: string[] = [];
    const read = await beginRead('run', (m) => warnings.push(m), '/proc/skim-no-such/sessions');
    expect(read).toBeNull();
    expect(warnings.join('\n')).toMatch(/\/proc\/skim-no-such/);
  });
});
