/**
 * The workspace root holds against a symlink swapped in while a tool reads: a path that is a
 * regular file inside the root when checked and a link to a file outside when opened must never
 * return the outside file. A thread swaps the path back and forth (atomic renames) while
 * read_file and grep read it, a bounded number of times; before files were read through the
 * descriptor that was checked, about one call in 40 returned the outside file.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PruneRequest, PruneResult } from '../../src/core/types.js';
import { grepTool } from '../../src/mcp/grep.js';
import { readFileTool } from '../../src/mcp/readFile.js';
import { Workspace } from '../../src/mcp/workspace.js';

const SECRET = 'TOP-SECRET outside the root';
const INSIDE = 'harmless inside the root';
const CALLS = 1500;

/** Swaps `root/target` between a regular file and a link to `outside`, until told to stop (at most 60 s). */
const SWAPPER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { target, outside, inside } = workerData;
const stop = new Int32Array(workerData.stop);
const end = Date.now() + 60000;
for (let i = 0; Atomics.load(stop, 0) === 0 && Date.now() < end; i++) {
  try {
    fs.symlinkSync(outside, target + '.l');
    fs.renameSync(target + '.l', target);
    fs.writeFileSync(target + '.f', inside);
    fs.renameSync(target + '.f', target);
  } catch {}
}
`;

let tmp: string;
let ws: Workspace;
const noPrune = async (_req: PruneRequest): Promise<PruneResult> => {
  throw new Error('not pruned in this test');
};

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'skim-race-'));
  mkdirSync(join(tmp, 'root'));
  writeFileSync(join(tmp, 'secret.txt'), `${SECRET}\n`);
  writeFileSync(join(tmp, 'root', 'f.txt'), `${INSIDE}\n`);
  ws = await Workspace.open(join(tmp, 'root'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `calls` reads while the path is swapped; how many returned the outside file. */
async function leaksDuringSwaps(read: () => Promise<string>): Promise<{ leaks: number; inside: number }> {
  const stop = new SharedArrayBuffer(4);
  const target = join(tmp, 'root', 'f.txt');
  const swapper = new Worker(SWAPPER, {
    eval: true,
    workerData: { target, outside: join(tmp, 'secret.txt'), inside: `${INSIDE}\n`, stop },
  });
  let leaks = 0;
  let inside = 0;
  await new Promise((resolve) => swapper.once('online', resolve));
  try {
    for (let i = 0; i < CALLS; i++) {
      const out = await read().catch((err: Error) => err.message);
      if (out.includes(SECRET)) leaks++;
      if (out.includes(INSIDE)) inside++;
    }
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
    await swapper.terminate();
    // the swapper may stop on the link: the next test starts from the regular file, whatever ran before
    writeFileSync(`${target}.f`, `${INSIDE}\n`);
    renameSync(`${target}.f`, target);
  }
  return { leaks, inside };
}

describe('a symlink swapped in during a read never leads outside the root', () => {
  it('read_file', async () => {
    const r = await leaksDuringSwaps(() => readFileTool(ws, noPrune, { path: 'f.txt' }));
    expect(r.leaks).toBe(0);
    expect(r.inside).toBeGreaterThan(0); // the reads did happen while the file was there
  }, 120_000);

  it('grep over the root', async () => {
    const r = await leaksDuringSwaps(() => grepTool(ws, noPrune, { pattern: 'root', path: '.' }));
    expect(r.leaks).toBe(0);
    expect(r.inside).toBeGreaterThan(0);
  }, 120_000);
});
