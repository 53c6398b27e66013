/**
 * Command outputs over HTTP: a `command` (and no `path`) on /v1/prune and batch lines routes the
 * request to pruneOutput(); GET /v1/outputs/{handle} gives back what a session kept. The same
 * answers from the inline runner and the worker-thread pool (whose copy of the session travels).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createPruner } from '../../src/index.js';
import { createApp } from '../../src/server/app.js';
import { inlineRunner } from '../../src/server/runner.js';
import { createWorkerPool } from '../../src/server/workerPool.js';
import { fakeRunner } from './fakeRunner.js';

const RUN = readFileSync(fileURLToPath(new URL('../../examples/mini-swe-agent/pytest-caplog.txt', import.meta.url)), 'utf8');
const COMMAND = 'python3 -m pytest -v test_records.py';
const QUERY = 'Why does test_clear_resets_records fail after caplog.clear()?';
const HANDLE = /skim show ([0-9a-f]+):(\d+)-(\d+)\]/;

type App = ReturnType<typeof createApp>;
const post = (a: App, path: string, body: unknown) =>
  a.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const pool = createWorkerPool({ size: 1 });
afterAll(() => pool.close());
const runners = [
  ['inline', () => inlineRunner(createPruner())],
  ['worker pool', () => pool],
] as const;

describe.each(runners)('outputs over HTTP (%s runner)', (_name, runner) => {
  it('POST /v1/prune with command: the output pruned, with the prune result fields where they overlap, and shape and handle', async () => {
    const a = createApp({ runner: runner(), log: () => {} });
    const res = await post(a, '/v1/prune', { code: RUN, command: COMMAND, query: QUERY, exitCode: 1 });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.shape).toBe('pytest');
    expect(body.handle).toBeNull();
    expect(body.text).toMatch(/\[skim: 150 lines of passed tests omitted \(9-158\), not stored\]/);
    expect(body.text).toContain('E       AssertionError: records taken before clear() were emptied by it');
    expect(body.kept[0]).toEqual([1, 8]);
    expect(body.omitted).toEqual([[9, 158]]);
    expect(body.warnings).toEqual([]);
    for (const k of ['text', 'kept', 'omitted', 'warnings', 'shape', 'handle', 'folds', 'linesIn', 'charsIn', 'charsOut', 'ms']) expect(body).toHaveProperty(k);
  });

  it('with a session: the handle in a marker gives back the lines over GET /v1/outputs/{handle}, in that session only', async () => {
    const a = createApp({ runner: runner(), log: () => {} });
    const body = await (await post(a, '/v1/prune', { code: RUN, command: COMMAND, query: QUERY, session: 'run-1' })).json();
    const [, handle, from, to] = HANDLE.exec(body.text)!;
    expect(body.handle).toBe(handle);
    const got = await (await a.request(`/v1/outputs/${handle}?session=run-1&lines=${from}-${to}`)).json();
    const lines = RUN.split(/(?<=\n)/);
    expect(got).toEqual({
      handle,
      command: COMMAND,
      text: lines.slice(Number(from) - 1, Number(to)).join(''),
      from: Number(from),
      to: Number(to),
      lines: lines.length,
    });
    expect((await (await a.request(`/v1/outputs/${handle}:3-4?session=run-1`)).json()).text).toBe(lines.slice(2, 4).join(''));
    expect((await (await a.request(`/v1/outputs/${handle}?session=run-1`)).json()).text).toBe(RUN);
    const other = await a.request(`/v1/outputs/${handle}?session=run-2`);
    expect(other.status).toBe(404);
    expect((await other.json()).error.message).toContain(`no output ${handle} in session run-2`);
    expect((await a.request(`/v1/outputs/${handle}?session=run-1&lines=9-2`)).status).toBe(400);
    // two different ranges: neither is silently preferred
    const both = await a.request(`/v1/outputs/${handle}:3-4?session=run-1&lines=5-6`);
    expect(both.status).toBe(400);
    expect((await both.json()).error.message).toContain('give one range');
    expect((await a.request(`/v1/outputs/${handle}`)).status).toBe(400);
    // the same command again in the session: what it showed before folds as such
    const again = await (await post(a, '/v1/prune', { code: RUN, command: COMMAND, query: QUERY, session: 'run-1' })).json();
    expect(again.text).toMatch(/lines as in the previous run of this command omitted/);
  });

  it('outputLimit: what the harness cut from an output is not remembered as shown, so the same command again shows it', async () => {
    const a = createApp({ runner: runner(), log: () => {} });
    const failure = 'E       AssertionError: records taken before clear() were emptied by it';
    const send = async (extra: object) => (await post(a, '/v1/prune', { code: RUN, command: COMMAND, query: QUERY, ...extra })).json();
    await send({ session: 'cut', outputLimit: 'head:300' });
    expect((await send({ session: 'cut', outputLimit: 'head:300' })).text).toContain(failure);
    await send({ session: 'whole' });
    expect((await send({ session: 'whole' })).text).not.toContain(failure);
  });

  it('a command that reads one file (cat F, sed -n a,bp F) is a read of that file: prune(), with its path and first line', async () => {
    const a = createApp({ runner: runner(), log: () => {} });
    const code = readFileSync(fileURLToPath(new URL('../../examples/logging.py', import.meta.url)), 'utf8');
    const q = 'Where are the caplog records replaced instead of cleared?';
    const read = await (await post(a, '/v1/prune', { code, command: 'cat src/_pytest/logging.py', query: q, session: 'r' })).json();
    expect(read.language).toBe('python');
    expect(read.shape).not.toBe('pytest');
    expect(read.handle).toBeUndefined();
    // the same file read again in the session: folded as unchanged, by path and line
    const again = await (
      await post(a, '/v1/prune', { code, command: 'cat src/_pytest/logging.py', query: 'How is the level of a log handler set?', session: 'r' })
    ).json();
    expect(again.text).toMatch(/lines unchanged since an earlier read/);
    const window = code
      .split(/(?<=\n)/)
      .slice(299, 360)
      .join('');
    const sed = await (await post(a, '/v1/prune', { code: window, command: "sed -n '300,360p' src/_pytest/logging.py", query: q, ratio: 4 })).json();
    expect(sed.text).toMatch(/lines omitted \((3\d\d)-(3\d\d)\)/);
  });

  it('batch lines with command are outputs, the others file prunes, in one answer', async () => {
    const a = createApp({ runner: runner(), log: () => {} });
    const code = 'import os\n\ndef proxy():\n    return os.environ.get("HTTPS_PROXY")\n';
    const res = await post(a, '/v1/prune/batch', {
      requests: [
        { code: RUN, command: COMMAND, query: QUERY, session: 'b' },
        { code, query: 'proxy', session: 'b' },
      ],
    });
    expect(res.status).toBe(200);
    const { results } = await res.json();
    expect(results[0].shape).toBe('pytest');
    expect(results[0].handle).toMatch(/^[0-9a-f]{10}$/);
    expect(results[1].language).toBe('python');
    expect(results[1].text).toBe(code);
  });
});

describe('output requests: client errors, failing open, file reads', () => {
  it('a budget or another file-only field with command is refused with 400, not ignored', async () => {
    const a = createApp({ runner: fakeRunner(), log: () => {} });
    const res = await post(a, '/v1/prune', { code: RUN, command: COMMAND, ratio: 4 });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe(`invalid request: ratio: not for a command's output (a request with "command" and no "path" is one)`);
    const batch = await post(a, '/v1/prune/batch', { requests: [{ code: 'x' }, { code: RUN, command: COMMAND, firstLine: 3 }] });
    expect(batch.status).toBe(400);
    expect((await batch.json()).error.message).toContain('requests.1: firstLine');
  });

  it('an output past the time limit fails open: the text whole, every line kept, the reason in error', async () => {
    const slow = { ...fakeRunner(), answerOutput: () => new Promise<string>((resolve) => setTimeout(() => resolve('{}'), 400)) };
    const a = createApp({ runner: slow, timeoutMs: 50, log: () => {} });
    const res = await post(a, '/v1/prune', { code: RUN, command: COMMAND, session: 's' });
    expect(res.status).toBe(200);
    const body = await res.json();
    const n = RUN.split('\n').length - 1;
    expect(body).toMatchObject({ text: RUN, shape: 'text', kept: [[1, n]], omitted: [], handle: null, error: 'time limit of 50 ms exceeded' });
    expect(body.diagnostics).toEqual([{ code: 'not-pruned', message: 'not pruned: time limit of 50 ms exceeded' }]);
  });

  it('with a path, command is a file read as before', async () => {
    const runner = fakeRunner();
    const a = createApp({ runner, log: () => {} });
    expect((await post(a, '/v1/prune', { code: 'x = 1\n', path: 'a.py', command: 'cat a.py' })).status).toBe(200);
    expect(runner.calls).toHaveLength(1);
  });
});
