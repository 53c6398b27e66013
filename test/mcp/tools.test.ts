/**
 * read_file / grep as functions: confinement to the root, cat -n numbering, windows, grep's
 * skipping rules and bounds. A recording prune stand-in checks when output is sent to pruning.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PruneRequest, PruneResult } from '../../src/core/types.js';
import { createPruner, SessionMemory } from '../../src/index.js';
import { focus } from '../../src/mcp/focus.js';
import { grepTool } from '../../src/mcp/grep.js';
import { parseLineRange, readFileTool } from '../../src/mcp/readFile.js';
import { Workspace } from '../../src/mcp/workspace.js';
import { numberLine } from '../../src/tools/fileTools.js';
import { fakePrune } from '../server/fakeRunner.js';
import { type Fixture, makeWorkspace } from './workspaceFixture.js';

let fx: Fixture;
let ws: Workspace;
const calls: PruneRequest[] = [];
const prune = async (req: PruneRequest): Promise<PruneResult> => {
  calls.push(req);
  return fakePrune(req);
};
/** The shipped learned model, for the tests that need real judgements. */
const real = createPruner();
const realPrune = (req: PruneRequest) => real.prune(req);
/** pytest's logging plugin (826 lines), as pkg/caplog.py of the workspace. */
const caplog = readFileSync(new URL('../../examples/logging.py', import.meta.url), 'utf8');

beforeAll(async () => {
  fx = makeWorkspace();
  writeFileSync(join(fx.root, 'pkg', 'caplog.py'), caplog);
  ws = await Workspace.open(fx.root);
});
afterAll(() => fx.cleanup());

describe('confinement', () => {
  it.each([
    ['absolute path outside', () => `${fx.outside}/secret.txt`, /outside the workspace root/],
    ['.. escape', () => '../outside/secret.txt', /outside the workspace root/],
    ['symlinked file leading out', () => 'pkg/leak.txt', /symlink that leads outside/],
    ['symlinked directory leading out', () => 'outdir/secret.txt', /symlink that leads outside/],
    ['missing file', () => 'pkg/nope.py', /no such file/],
  ])('refuses %s', async (_name, path, message) => {
    await expect(readFileTool(ws, prune, { path: path() })).rejects.toThrow(message);
    await expect(grepTool(ws, prune, { pattern: 'proxy', path: path() })).rejects.toThrow(message);
  });

  it('throws SkimErrors with codes: EOUTSIDE for an escape, ENOINPUT for a missing file', async () => {
    await expect(readFileTool(ws, prune, { path: '../outside/secret.txt' })).rejects.toMatchObject({ code: 'EOUTSIDE' });
    await expect(grepTool(ws, prune, { pattern: 'x', path: 'pkg/leak.txt' })).rejects.toMatchObject({ code: 'EOUTSIDE' });
    await expect(readFileTool(ws, prune, { path: 'pkg/nope.py' })).rejects.toMatchObject({ code: 'ENOINPUT' });
    await expect(readFileTool(ws, prune, { path: 'pkg' })).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('allows absolute paths and symlinks that stay inside the root', async () => {
    expect(await readFileTool(ws, prune, { path: `${fx.root}/pkg/small.py` })).toContain('return a + b');
    expect(await readFileTool(ws, prune, { path: 'alias.py' })).toContain('def add');
  });
});

describe('read_file', () => {
  it('reads a file that is not valid UTF-8 as every file tool does: Latin-1, with a note', async () => {
    writeFileSync(join(fx.root, 'pkg', 'latin1.py'), Buffer.from([...Buffer.from('x = "caf'), 0xe9, ...Buffer.from('"\n')]));
    const out = await readFileTool(ws, prune, { path: 'pkg/latin1.py' });
    expect(out).toBe(`${numberLine(1, 'x = "caf\u00e9"')}\n[pkg/latin1.py: not valid UTF-8: read as Latin-1, bytes kept as they are]\n`);
    expect(await grepTool(ws, prune, { pattern: 'caf\u00e9', path: 'pkg' })).toContain('pkg/latin1.py:1:x = "caf\u00e9"');
  });

  it('numbers lines like cat -n', async () => {
    const out = await readFileTool(ws, prune, { path: 'pkg/small.py' });
    expect(out).toBe(`${numberLine(1, 'def add(a, b):')}\n${numberLine(2, '    return a + b')}\n`);
    expect(numberLine(12, 'x')).toBe('    12\tx');
  });

  it('shows a window with offset/limit and says how to read on', async () => {
    const out = await readFileTool(ws, prune, { path: 'pkg/session.py', offset: 10, limit: 3 });
    const lines = out.trimEnd().split('\n');
    expect(lines.slice(0, 3).map((l) => l.split('\t')[0].trim())).toEqual(['10', '11', '12']);
    expect(lines[3]).toBe(
      `[session.py has ${fx.longLines} lines; this shows lines 10-12; call read_file with offset=13 to read on]`.replace('session.py', 'pkg/session.py'),
    );
    await expect(readFileTool(ws, prune, { path: 'pkg/session.py', offset: 100000 })).rejects.toThrow(/past the end/);
  });

  it('takes a range as markers name it ("a-b"), and refuses a malformed one', async () => {
    const out = await readFileTool(ws, prune, { path: 'pkg/session.py', lines: '10-12' });
    expect(
      out
        .split('\n')
        .slice(0, 3)
        .map((l) => l.split('\t')[0].trim()),
    ).toEqual(['10', '11', '12']);
    expect(parseLineRange('7')).toEqual({ offset: 7, limit: 1 });
    for (const bad of ['12-10', '0-3', 'a-b', '1-2-3']) expect(() => parseLineRange(bad)).toThrow(/range like "120-156"/);
  });

  it('prunes to max_chars with the real pruner, the question first', async () => {
    const out = await readFileTool(ws, realPrune, {
      path: 'pkg/session.py',
      context_focus_question: 'Which proxy is selected for a URL?',
      max_chars: 1200,
    });
    const body = out.split('\n').filter((l) => !l.startsWith('[skim'));
    expect(body.join('\n').length).toBeLessThanOrEqual(1200);
    expect(out).toMatch(/def select_proxy/);
  });

  it('prunes only with a question and a long output', async () => {
    calls.length = 0;
    await readFileTool(ws, prune, { path: 'pkg/session.py' });
    await readFileTool(ws, prune, { path: 'pkg/session.py', context_focus_question: '   ' });
    await readFileTool(ws, prune, { path: 'pkg/small.py', context_focus_question: 'How are numbers added?' });
    expect(calls).toHaveLength(0);
    const out = await readFileTool(ws, prune, { path: 'pkg/session.py', context_focus_question: 'Which proxy is selected?' });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ query: 'Which proxy is selected?', path: 'pkg/session.py' });
    expect(calls[0].code.startsWith('     1\t"""')).toBe(true);
    expect(out).toMatch(/\[skim: kept \d+ of \d+ lines for the question/);
  });

  it("passes the read policy's doubt on as a note: a weak match, with what to do", async () => {
    const out = await readFileTool(ws, realPrune, {
      path: 'pkg/caplog.py',
      context_focus_question: 'Which function parses the YAML file?',
      limit: 2000,
    });
    expect(out).toMatch(/^\[skim: weak match: the best line scores [\d.]+x the threshold against the goal hint .*read the range you need\]$/m);
  });

  it('says so when the real pruner finds nothing relevant, and how to read the file anyway', async () => {
    // pytest's logging plugin, asked about GPUs: the shipped model omits all of it
    const out = await readFileTool(ws, realPrune, {
      path: 'pkg/caplog.py',
      context_focus_question: 'How are CUDA kernels launched on the GPU device?',
    });
    const total = caplog.split('\n').length - 1;
    expect(out).toMatch(new RegExp(`\\.\\.\\. ${total} lines omitted \\(1-${total}\\)`));
    expect(out).toMatch(
      new RegExp(
        `\\[skim: nothing here looked relevant to the question \\(relevance 0\\.\\d\\d\\), so all ${total} lines were omitted; if you need them anyway, call read_file again without context_focus_question`,
      ),
    );
    expect(out).not.toMatch(/kept 0 of/);
  });

  it('does not call lines folded as shown before "nothing relevant"', async () => {
    writeFileSync(join(fx.root, 'pkg', 'caplog2.py'), caplog);
    const session = new SessionMemory();
    const remembering = (req: PruneRequest) => real.prune({ ...req, session, relativeThreshold: 0.5 });
    const read = (q: string) => readFileTool(ws, remembering, { path: 'pkg/caplog2.py', context_focus_question: q }, { remembers: true });
    const first = await read('Where are the caplog records replaced instead of cleared?');
    expect(first).toMatch(/\[skim: kept \d+ of/);
    // the same read again is served as it was the first time
    expect(await read('Where are the caplog records replaced instead of cleared?')).toBe(first);
    // much the same question: what serves it was shown above
    const again = await read('Where are caplog records replaced rather than cleared?');
    expect(again).toMatch(/unchanged since an earlier read/);
    expect(again).not.toMatch(/nothing here looked relevant/);
    expect(again).toMatch(/\[skim: (kept \d+ of|none of the \d+ lines not shown before looked relevant)/);
  });

  it('counts in its note only the lines it is about: none kept, the rest folded as shown before', async () => {
    const output = Array.from({ length: 60 }, (_, i) => numberLine(i + 1, `x${i} = ${i}`)).join('\n');
    const keepMask = new Uint8Array(60);
    const stub = async (): Promise<PruneResult> => ({
      ...(await fakePrune({ code: output, query: 'q' })),
      text: '# ... 40 lines unchanged since an earlier read (1-40)\n# ... 20 lines omitted (41-60)\n',
      omitted: [
        [1, 40],
        [41, 60],
      ],
      keepMask,
      seenLines: 40,
    });
    const notes: string[] = [];
    await focus(stub, output, 'q', { notes, kind: 'read_file', remembers: true });
    expect(notes.join('\n')).not.toMatch(/nothing here looked relevant/);
    expect(notes.join('\n')).toMatch(/none of the 20 lines not shown before looked relevant/);
  });

  it('refuses directories and binary files with a clear message', async () => {
    await expect(readFileTool(ws, prune, { path: 'pkg' })).rejects.toThrow(/is a directory/);
    await expect(readFileTool(ws, prune, { path: 'pkg/data.bin' })).rejects.toThrow(/binary file/);
  });
});

describe('grep', () => {
  it('prints path:line:text, skipping node_modules, .git, binaries and links leading out', async () => {
    const out = await grepTool(ws, prune, { pattern: 'select_proxy' });
    const matches = out.split('\n').filter((l) => /^\S+:\d+:/.test(l));
    expect(matches.length).toBeGreaterThan(0);
    for (const m of matches) expect(m.startsWith('pkg/session.py:')).toBe(true);
    expect(out).not.toMatch(/secret|node_modules|\.git\//);
    expect(out).toMatch(/\[\d+ matching lines in 1 files\]/);
  });

  it('filters by glob and path, reports no matches plainly', async () => {
    expect(await grepTool(ws, prune, { pattern: 'def add', glob: '*.py' })).toMatch(/^alias\.py:1:def add/m);
    expect(await grepTool(ws, prune, { pattern: 'def add', glob: '*.ts' })).toMatch(/^No matches/);
    expect(await grepTool(ws, prune, { pattern: 'def add', path: 'pkg/small.py' })).toMatch(/^pkg\/small\.py:1:def add/);
  });

  it('rejects an invalid regular expression', async () => {
    await expect(grepTool(ws, prune, { pattern: '(unclosed' })).rejects.toThrow(/invalid regular expression/);
  });

  it('prunes long results when a question is given', async () => {
    calls.length = 0;
    const out = await grepTool(ws, prune, { pattern: '.', path: 'pkg/session.py', context_focus_question: 'proxy' });
    expect(calls).toHaveLength(1);
    expect(calls[0].code.split('\n')[0]).toMatch(/^pkg\/session\.py:1:/);
    expect(out).toMatch(/\[skim: kept/);
  });
});
