/**
 * `skim mcp` under a client's output limit (SKIM_OUTPUT_LIMIT): the session remembers only lines
 * the client shows of the whole tool result, notes after the answer included, and a long
 * whole-file read with a question is still fitted to the whole limit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOutputLimit, visibleSpans } from '../../src/core/outputLimit.js';
import type { PruneRequest } from '../../src/core/types.js';
import { createPruner, type SessionMemory } from '../../src/index.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { type Fixture, makeWorkspace } from './workspaceFixture.js';

const LIMIT = 'head+tail:20000';
let fx: Fixture;
let client: Client;
const sessions: SessionMemory[] = [];
const requests: PruneRequest[] = [];
const real = createPruner();

beforeAll(async () => {
  fx = makeWorkspace();
  // pytest's logging plugin with one Latin-1 byte: the answer is followed by a decoding note
  const caplog = readFileSync(new URL('../../examples/logging.py', import.meta.url));
  writeFileSync(join(fx.root, 'pkg', 'caplog_latin1.py'), Buffer.concat([Buffer.from('# caf\xe9\n', 'latin1'), caplog]));
  const { server } = await createMcpServer({
    root: fx.root,
    outputLimit: LIMIT,
    log: () => {},
    prune: (req) => {
      requests.push(req);
      if (req.session) sessions.push(req.session);
      return real.prune(req);
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'skim-limit', version: '0.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  fx?.cleanup();
});

async function readFile(args: Record<string, unknown>): Promise<string> {
  const r = (await client.callTool({ name: 'read_file', arguments: args })) as { content: { text: string }[] };
  return r.content.map((c) => c.text).join('');
}

/** The file line numbers of the numbered lines the client shows whole of a tool result. */
function linesShown(result: string): Set<number> {
  const spans = visibleSpans(result.length, parseOutputLimit(LIMIT)!);
  const shown = new Set<number>();
  let pos = 0;
  for (const line of result.split('\n')) {
    const m = /^ *(\d+)\t/.exec(line);
    if (m && spans.some(([s, e]) => pos >= s && pos + line.length <= e)) shown.add(Number(m[1]));
    pos += line.length + 1;
  }
  return shown;
}

describe('skim mcp with an output limit', { shuffle: false }, () => {
  it('remembers no line the client cut: the notes after the answer move the tail it shows', async () => {
    const result = await readFile({ path: 'pkg/caplog_latin1.py' });
    expect(result.length).toBeGreaterThan(20_000);
    expect(result).toMatch(/not valid UTF-8: read as Latin-1.*\]\n$/);
    const remembered = sessions
      .at(-1)!
      .snapshot()
      .files.flatMap(([, lines]) => lines.map(([no]) => no));
    expect(remembered.length).toBeGreaterThan(0);
    const shown = linesShown(result);
    expect(remembered.filter((no) => !shown.has(no))).toEqual([]);
  });

  it('fits a whole-file read with a question to the whole limit, less room for the notes', async () => {
    const result = await readFile({ path: 'pkg/caplog_latin1.py', context_focus_question: 'How does caplog.clear() reset the records?' });
    expect(requests.at(-1)!.code.length).toBeGreaterThan(20_000);
    // fitted to 19,000 characters, not to the head alone
    expect(requests.at(-1)!.fitChars).toBe(19_000);
    expect(result).toMatch(/\[skim: pruned to fit the harness's output limit \(19000 characters shown whole\)/);
    expect(result.length).toBeGreaterThan(15_000);
    expect(result.length).toBeLessThan(20_000);
  });

  it('does not fit a read the client shows whole', async () => {
    // numbered as read_file numbers it, 19,000-20,000 characters: over what skim fits to, under what the client cuts
    const lines = readFileSync(new URL('../../examples/logging.py', import.meta.url), 'utf8').split('\n');
    const numbered = (k: number) => lines.slice(0, k).reduce((len, l, i) => len + String(i + 1).padStart(6).length + l.length + 2, 0);
    let n = 0;
    while (numbered(n + 1) < 19_600) n++;
    writeFileSync(join(fx.root, 'pkg', 'under_limit.py'), lines.slice(0, n).join('\n'));
    await readFile({ path: 'pkg/under_limit.py', context_focus_question: 'How does caplog.clear() reset the records?' });
    const code = requests.at(-1)!.code;
    expect(code.length).toBeGreaterThan(19_000);
    expect(code.length).toBeLessThan(20_000);
    expect(requests.at(-1)!.fitChars).toBe(0);
  });
});
