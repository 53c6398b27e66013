/**
 * The MCP grep tool tells the pruner which files its output names: a file whose name looks like a
 * grep prefix (`a:5:b.py`) is marked as itself, not as line 5 of `src/a`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPruner } from '../../src/index.js';
import { grepTool } from '../../src/mcp/grep.js';
import { Workspace } from '../../src/mcp/workspace.js';

const root = mkdtempSync(join(tmpdir(), 'skim-grepfiles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('MCP grep hits in a file named a:5:b.py', () => {
  it('markers and files name the file, not src/a line 5', async () => {
    mkdirSync(join(root, 'src'));
    const body = Array.from({ length: 120 }, (_, i) => `def handler_${i}(request):\n    value = compute(request, ${i})\n    return value\n`).join('');
    writeFileSync(join(root, 'src', 'a:5:b.py'), body);
    const ws = await Workspace.open(root);
    const pruner = createPruner();
    const paths: string[][] = [];
    // a character budget makes sure the output is pruned, so it has markers
    const out = await grepTool(
      ws,
      async (req) => {
        const r = await pruner.prune({ ...req, maxChars: 2000 });
        paths.push((r.files ?? []).map((f) => f.path ?? ''));
        return r;
      },
      { pattern: 'compute|return', context_focus_question: 'where does handler_77 compute its value?' },
    );
    expect(paths).toEqual([['src/a:5:b.py']]);
    expect(out).toMatch(/omitted.*\(src\/a:5:b\.py:\d+-\d+\)/);
    expect(out).not.toMatch(/\(src\/a:5-5\)/);
  });
});
