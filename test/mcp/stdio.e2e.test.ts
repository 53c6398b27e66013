/**
 * End to end: the SDK's own Client drives `skim mcp --root <workspace>` over stdio, as an agent's
 * MCP host would: the built binary (bin/skim.js, dist/; `npm run build` first), as a process.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneOutput } from '../../src/core/output/pruneOutput.js';
import { beginRead } from '../../src/tools/sessionStore.js';
import { BIN, ROOT as REPO } from '../helpers/cli.js';
import { type Fixture, makeWorkspace } from './workspaceFixture.js';

let fx: Fixture;
let client: Client;
let stderr = '';
/** A disk session holding one pruned command output, as `skim run --session e2e` leaves it. */
const sessionDir = mkdtempSync(join(tmpdir(), 'skim-mcp-sessions-'));
const RUN = readFileSync(join(REPO, 'examples/mini-swe-agent/pytest-caplog.txt'), 'utf8');
let runHandle = '';

type TextResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
function text(r: unknown): string {
  return (r as TextResult).content.map((c) => c.text ?? '').join('');
}

beforeAll(async () => {
  fx = makeWorkspace();
  const read = await beginRead('e2e', () => {}, sessionDir);
  runHandle = pruneOutput({ text: RUN, command: 'pytest -v', memory: read!.memory.outputs }).handle!;
  await read!.commit();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', fx.root],
    cwd: REPO,
    env: { ...(process.env as Record<string, string>), SKIM_SESSION_DIR: sessionDir, SKIM_SESSION: 'e2e' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  client = new Client({ name: 'skim-e2e', version: '0.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  fx?.cleanup();
});

// One agent's session over one connection, in order (a read folds against the reads before it): never shuffled.
describe('skim mcp over stdio', { shuffle: false }, () => {
  it('lists read_file and grep with descriptions that teach the goal hint', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['grep', 'read_file', 'show_output']);
    expect(Object.keys(byName.show_output.inputSchema.properties ?? {}).sort()).toEqual(['handle', 'lines']);
    const read = byName.read_file;
    expect(Object.keys(read.inputSchema.properties ?? {}).sort()).toEqual([
      'context_compacted',
      'context_focus_question',
      'limit',
      'lines',
      'max_chars',
      'offset',
      'path',
    ]);
    expect(read.inputSchema.required).toEqual(['path']);
    expect(Object.keys(byName.grep.inputSchema.properties ?? {}).sort()).toEqual(['context_compacted', 'context_focus_question', 'glob', 'path', 'pattern']);
    expect(read.description).toMatch(/lines="a-b"/);
    expect(read.description).toMatch(/unchanged since an earlier read/);
    const hint = JSON.stringify(read.inputSchema.properties?.context_focus_question);
    expect(hint).toMatch(/complete question/);
    expect(hint).toMatch(/not file names or line numbers/);
    expect(hint).toMatch(/empty/);
  });

  it('show_output gives back the lines a marker of a command output names, from the session skim run kept it in', async () => {
    const out = text(await client.callTool({ name: 'show_output', arguments: { handle: `${runHandle}:9-11` } }));
    expect(out).toBe(
      `${RUN.split(/(?<=\n)/)
        .slice(8, 11)
        .join('')}[skim: output ${runHandle}, lines 9-11 of ${RUN.split('\n').length - 1}]\n`,
    );
    const missing = (await client.callTool({ name: 'show_output', arguments: { handle: '0123456789', lines: '1-2' } })) as TextResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^Error: no output 0123456789 in this session or session e2e/);
  });

  const question = 'How does the session decide which proxy to use for a URL, and when is the proxy bypassed?';

  it("leaves a run's first read whole (the read policy: first reads are the likeliest to hold what the fix needs)", async () => {
    const out = text(await client.callTool({ name: 'read_file', arguments: { path: 'pkg/session.py', context_focus_question: question } }));
    expect(out.trimEnd().split('\n')).toHaveLength(fx.longLines);
  });

  it('folds a second read of the unchanged file into one "unchanged since an earlier read" marker', async () => {
    const out = text(
      await client.callTool({
        name: 'read_file',
        arguments: { path: 'pkg/session.py', context_focus_question: 'Where are the proxy environment variables read?' },
      }),
    );
    expect(out).toContain(`# ... ${fx.longLines} lines unchanged since an earlier read (1-${fx.longLines})`);
    expect(out).toMatch(/\[skim: \d+ lines you were already shown in this session/);
  });

  it('after folding, shows a range the agent names (lines, offset/limit) in full; the same read asked again too', async () => {
    const original = readFileSync(join(fx.root, 'pkg', 'session.py'), 'utf8').split('\n');
    const body = (out: string) => out.split('\n').filter((l) => /^\s+\d+\t/.test(l));
    const byLines = text(await client.callTool({ name: 'read_file', arguments: { path: 'pkg/session.py', lines: '10-25' } }));
    expect(byLines).not.toMatch(/unchanged since an earlier read/);
    expect(body(byLines)).toHaveLength(16);
    const byOffset = text(await client.callTool({ name: 'read_file', arguments: { path: 'pkg/session.py', offset: 30, limit: 5 } }));
    expect(body(byOffset).map((l) => l.split('\t')[1])).toEqual(original.slice(29, 34));
    const again = text(
      await client.callTool({
        name: 'read_file',
        arguments: { path: 'pkg/session.py', context_focus_question: 'Where are the proxy environment variables read?' },
      }),
    );
    expect(again).not.toMatch(/unchanged since an earlier read/);
  });

  it('after the agent says its context was compacted, nothing folds until shown again', async () => {
    const ask = (q: string, compacted?: boolean) =>
      client.callTool({ name: 'read_file', arguments: { path: 'pkg/session.py', context_focus_question: q, context_compacted: compacted } }).then(text);
    expect(await ask('Which proxy does a URL get?')).toMatch(/unchanged since an earlier read/);
    expect(await ask('Which proxy does an https URL get?', true)).not.toMatch(/unchanged since an earlier read/);
  });

  it('a few reads into a run (a new connection), prunes to the question, keeping original numbers and marking omitted ranges', async () => {
    const second = new Client({ name: 'skim-e2e-2', version: '0.0.0' });
    await second.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--root', fx.root],
        cwd: REPO,
        stderr: 'ignore',
      }),
    );
    try {
      for (let k = 0; k < 4; k++) await second.callTool({ name: 'grep', arguments: { pattern: 'retry', path: 'pkg' } });
      const r = await second.callTool({ name: 'read_file', arguments: { path: 'pkg/session.py', context_focus_question: question } });
      expect((r as TextResult).isError).toBeFalsy();
      const out = text(r);
      const numbered = out.split('\n').filter((l) => /^\s+\d+\t/.test(l));
      expect(numbered.length).toBeLessThan(fx.longLines);
      expect(out).toMatch(/lines omitted \(\d+-\d+\)/);
      expect(out).toMatch(/^\s+\d+\t {4}def select_proxy\(self, url: str\)/m);
      expect(out).toMatch(/\[skim: kept \d+ of \d+ lines/);
      // Every kept line is the original line with its original number.
      const original = readFileSync(join(fx.root, 'pkg', 'session.py'), 'utf8').split('\n');
      for (const l of numbered) {
        const [n, line] = l.split(/\t(.*)/s);
        expect(original[Number(n) - 1]).toBe(line);
      }
    } finally {
      await second.close();
    }
  }, 30_000);

  it('reads a file numbered like cat -n, whole without a question', async () => {
    const out = text(await client.callTool({ name: 'read_file', arguments: { path: 'pkg/small.py' } }));
    expect(out).toBe('     1\tdef add(a, b):\n     2\t    return a + b\n');
  });

  it('refuses paths outside the root with a tool error, and keeps serving', async () => {
    for (const path of [`${fx.outside}/secret.txt`, '../outside/secret.txt', 'pkg/leak.txt']) {
      const r = (await client.callTool({ name: 'read_file', arguments: { path } })) as TextResult;
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/access denied/);
    }
    const g = (await client.callTool({ name: 'grep', arguments: { pattern: 'secret', path: 'outdir' } })) as TextResult;
    expect(g.isError).toBe(true);
  });

  it('greps in-process with path:line:text output', async () => {
    const out = text(await client.callTool({ name: 'grep', arguments: { pattern: 'def \\w*prox', glob: '*.py' } }));
    expect(out).toMatch(/^pkg\/session\.py:\d+:def environment_proxies\(\)/m);
    expect(out).toMatch(/^pkg\/session\.py:\d+: {4}def select_proxy/m);
    expect(out).not.toMatch(/node_modules|secret/);
  });

  it('rejects bad arguments through the schema', async () => {
    const r = (await client.callTool({ name: 'read_file', arguments: { path: 'pkg/session.py', offset: 0 } })) as TextResult;
    expect(r.isError).toBe(true);
  });

  it('logs to stderr only (stdout is the protocol)', () => {
    expect(stderr).toMatch(/skim mcp: serving read_file, grep and show_output for .* \(outputs of session e2e\)/);
  });
});
