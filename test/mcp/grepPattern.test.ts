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
import { GREP_DESCRIPTION } from '../../src/mcp/server.js';
import { Workspace } from '../../src/mcp/workspace.js';
import { countMatchWorkAsync } from '../helpers/work.js';
import { fakePruneAsync as fakePrune } from '../server/fakeRunner.js';

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
  it('answers with the lines that do match, no backtracking RegExp ever seeing the hostile line', async () => {
    // a JavaScript RegExp of the pattern on that line would never return: the guard throws instead
    // (the matcher's own work per character is bounded in test/grep/linePattern.test.ts)
    const guard = { line: `${'a'.repeat(100)}b`, source: (s: string) => s.includes('a+)+') };
    const { value: out } = await countMatchWorkAsync(() => grepTool(ws, fakePrune, { pattern: '(a+)+$' }), guard);
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

describe('grep pattern syntax (RE2, as the tool description says)', () => {
  let dir: string;
  let ws2: Workspace;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skim-mcp-syntax-'));
    writeFileSync(join(dir, 'mod.py'), 'def get_records(self):\n    pass\ndef clear(self):\n    x = f(a|b)\nCLASS = 1\nport = 8080\n');
    ws2 = await Workspace.open(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const lines = (out: string) =>
    out
      .split('\n')
      .filter((l) => /^mod\.py:\d+:/.test(l))
      .map((l) => Number(l.split(':')[1]));

  it('takes | ( ) + ? { } as operators, as grep -E and ripgrep do', async () => {
    expect(lines(await grepTool(ws2, fakePrune, { pattern: 'def (get_records|clear)' }))).toEqual([1, 3]);
    expect(lines(await grepTool(ws2, fakePrune, { pattern: 'get_records|clear' }))).toEqual([1, 3]);
    expect(lines(await grepTool(ws2, fakePrune, { pattern: '\\d{4}' }))).toEqual([6]);
    expect(lines(await grepTool(ws2, fakePrune, { pattern: 'f\\(a\\|b\\)' }))).toEqual([4]); // escaped: literal ( | )
    expect(lines(await grepTool(ws2, fakePrune, { pattern: '(?i)class' }))).toEqual([5]);
    expect(lines(await grepTool(ws2, fakePrune, { pattern: '\\bport\\b' }))).toEqual([6]);
  });

  it('is case-sensitive, and the description says how to write the common cases', async () => {
    expect(await grepTool(ws2, fakePrune, { pattern: 'class' })).toMatch(/^No matches/);
    expect(GREP_DESCRIPTION).toMatch(/RE2 syntax/);
    expect(GREP_DESCRIPTION).toMatch(/"get_records\|clear" matches either name/);
    expect(GREP_DESCRIPTION).toMatch(/no lookaround or back-references/);
  });
});
