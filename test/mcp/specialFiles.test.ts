/**
 * read_file and grep on special files inside the root: a FIFO would block the read (and the
 * server) until a writer comes, a character device never ends. Both answer at once instead.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grepTool } from '../../src/mcp/grep.js';
import { readFileTool } from '../../src/mcp/readFile.js';
import { Workspace } from '../../src/mcp/workspace.js';
import { fakePruneAsync as fakePrune } from '../server/fakeRunner.js';

let root: string;
let fifo: string;
let ws: Workspace;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skim-mcp-special-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'app.py'), 'def select_proxy(url):\n    return None\n');
  fifo = join(root, 'src', 'pipe.py');
  execFileSync('mkfifo', [fifo]);
  ws = await Workspace.open(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Fail instead of hanging the run; a reader stuck opening the FIFO is let go. */
async function promptly<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader was waiting
      }
      reject(new Error('the tool did not answer within 3 s'));
    }, 3_000);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a FIFO in the workspace', () => {
  it('read_file refuses it with a clear error', async () => {
    await expect(promptly(readFileTool(ws, fakePrune, { path: 'src/pipe.py' }))).rejects.toThrow('not a regular file (a FIFO): src/pipe.py');
  });

  it('grep on it refuses it the same way', async () => {
    await expect(promptly(grepTool(ws, fakePrune, { pattern: 'x', path: 'src/pipe.py' }))).rejects.toThrow(/not a regular file \(a FIFO\)/);
  });

  it('grep over its directory skips it and searches the rest', async () => {
    const out = await promptly(grepTool(ws, fakePrune, { pattern: 'select_proxy', path: 'src' }));
    expect(out).toMatch(/^src\/app\.py:1:def select_proxy/m);
    expect(out).not.toMatch(/pipe/);
  });
});

describe.runIf(existsSync('/dev/zero'))('a character device (--root /dev)', () => {
  it('read_file and grep refuse /dev/zero at once instead of reading it forever', async () => {
    const dev = await Workspace.open('/dev');
    await expect(promptly(readFileTool(dev, fakePrune, { path: 'zero' }))).rejects.toThrow(/not a regular file \(a character device\)/);
    await expect(promptly(grepTool(dev, fakePrune, { pattern: 'x', path: 'zero' }))).rejects.toThrow(/character device/);
  });
});
