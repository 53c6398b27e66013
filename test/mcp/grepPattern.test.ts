/**
 * The MCP grep tool with a catastrophic pattern: `(a+)+$` against a line of a's ending in b
 * backtracks forever in a JavaScript RegExp and would block the server for every other call.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grepTool } from '../../src/mcp/grep.js';
import { readFileTool } from '../../src/mcp/readFile.js';
import { Workspace } from '../../src/mcp/workspace.js';
import { fakePrune } from '../server/fakeRunner.js';

let root: string;
let ws: Workspace;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skim-mcp-redos-'));
  writeFileSync(join(root, 'evil.txt'), `${'a'.repeat(100)}b\n${'a'.repeat(30)}\n`);
  writeFileSync(join(root, 'ok.py'), 'def f():\n    return 1\n');
  ws = await Workspace.open(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('grep with a catastrophic pattern', () => {
  it('answers within a couple of seconds, with the lines that do match', async () => {
    const t0 = performance.now();
    const out = await grepTool(ws, fakePrune, { pattern: '(a+)+$' });
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(out).toBe(`evil.txt:2:${'a'.repeat(30)}\n[1 matching lines in 1 files]\n`);
  });

  it('leaves the server free for other calls meanwhile', async () => {
    const [grep, read] = await Promise.all([
      grepTool(ws, fakePrune, { pattern: '(a|aa)*$b', path: 'evil.txt' }),
      readFileTool(ws, fakePrune, { path: 'ok.py' }),
    ]);
    expect(grep).toMatch(/^No matches/);
    expect(read).toContain('return 1');
  });

  it('refuses lookaround with an error the agent can act on', async () => {
    await expect(grepTool(ws, fakePrune, { pattern: 'a(?=b)' })).rejects.toThrow(/RE2 syntax.*no lookahead/);
  });
});
