import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkCorpus, MAX_CHUNK, MIN_CHUNK } from '../../src/data/synth/chunks.js';
import { TASK_TYPES } from '../../src/data/synth/prompts.js';
import { runSynth, type TeacherRecord } from '../../src/data/synth/synth.js';
import { readCases } from '../../src/train/datasets.js';

/** A Python file of `n` functions of 8 lines each. */
const pyFile = (name: string, n = 2) =>
  Array.from({ length: n }, (_, k) => [
    `def ${name}_${k}(x):`,
    '    """Docs."""',
    `    a = x + ${k}`,
    '    b = a * 2',
    '    if b > 10:',
    '        return b',
    '    return a',
    '',
  ])
    .flat()
    .join('\n');

interface Call {
  model: string;
  path: string;
  auth?: string;
}

/** Fake OpenAI-compatible endpoint: behaviour picked by the file name in the prompt. */
function fakeEndpoint(calls: Call[]): Server {
  const seen = new Map<string, number>();
  return createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const c of req) body += c;
    const { model, messages } = JSON.parse(body) as { model: string; messages: { content: string }[] };
    const user = messages[messages.length - 1].content;
    const m = /File: (\S+) \(\w+\), lines (\d+)-(\d+)/.exec(user)!;
    const [path, s, e] = [m[1], Number(m[2]), Number(m[3])];
    calls.push({ model, path, auth: req.headers.authorization });
    const key = `${model}:${path}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    const reply = (content: string) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage: { prompt_tokens: 100, completion_tokens: 20 } }));
    };
    if (model === 'judge') return reply(JSON.stringify({ score: path.startsWith('meh') ? 2 : 5, reason: 'ok' }));
    const good = () =>
      reply('Here you go:\n```json\n' + JSON.stringify({ query: `How does ${path} compute the doubled value?`, lines: [[s, s + 2], s + 4] }) + '\n```');
    if (path.startsWith('malformed') && n === 1) return reply('{"query": "broken", "lines": [[1, 2]');
    if (path.startsWith('outofrange')) return reply(JSON.stringify({ query: 'Where is the value doubled?', lines: [[e + 5, e + 9]] }));
    if (path.startsWith('whole')) return reply(JSON.stringify({ query: 'Show me everything in this module', lines: [[s, e]] }));
    if (path.startsWith('ratelimit') && n === 1) {
      res.statusCode = 429;
      res.setHeader('retry-after', '0');
      return res.end('{"error": "slow down"}');
    }
    if (path.startsWith('slow') && n === 1) {
      // no reply at all: the client's time limit is what ends the call, however loaded the machine
      await new Promise((r) => res.once('close', r));
      return;
    }
    good();
  });
}

describe('chunking', () => {
  it('cuts a file along top-level scopes into 40-200 line chunks that cover its functions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skim-chunks-'));
    writeFileSync(join(dir, 'big.py'), ['import os', '', pyFile('f', 60)].join('\n'));
    const { chunks } = await chunkCorpus(dir);
    rmSync(dir, { recursive: true, force: true });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.end - c.start + 1).toBeLessThanOrEqual(MAX_CHUNK);
      expect(c.end - c.start + 1).toBeGreaterThanOrEqual(MIN_CHUNK);
      // a chunk starts at a unit boundary: a def (or the file's imports)
      expect(c.fileLines[c.start - 1]).toMatch(/^(def |import )/);
    }
    for (let k = 1; k < chunks.length; k++) expect(chunks[k].start).toBe(chunks[k - 1].end + 1);
  });
});

describe('skim data synth against a fake endpoint', () => {
  let server: Server;
  let endpoint: string;
  let dir: string;
  const calls: Call[] = [];

  beforeAll(async () => {
    server = fakeEndpoint(calls);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    dir = mkdtempSync(join(tmpdir(), 'skim-synth-'));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const corpus = (name: string, files: string[]): string => {
    const c = join(dir, name);
    mkdirSync(c, { recursive: true });
    for (const f of files) writeFileSync(join(c, f), pyFile(f.replace('.py', ''), 3));
    writeFileSync(join(c, 'notes.md'), '# not code\n');
    return c;
  };
  const read = (f: string): TeacherRecord[] =>
    readFileSync(f, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  // a time limit the other replies (immediate) meet even on a loaded machine; only "slow" outlasts it
  const base = { model: 'teacher', timeoutMs: 3000, retries: 2, backoffMs: 5, concurrency: 3 };

  it('keeps valid replies, re-asks after malformed JSON, drops out-of-range and whole-chunk answers, survives 429 and a timeout', async () => {
    const c = corpus('c1', ['good.py', 'malformed.py', 'outofrange.py', 'whole.py', 'ratelimit.py', 'slow.py']);
    const out = join(dir, 'c1.jsonl');
    const before = calls.length; // the other tests of this block send no key
    const s = await runSynth({ ...base, corpus: c, endpoint, out, apiKey: 'sk-test-123', priceIn: 1, priceOut: 2 });
    const recs = read(out);
    expect(recs.map((r) => r.files[0].path).sort()).toEqual(['good.py', 'malformed.py', 'ratelimit.py', 'slow.py']);
    expect(s.kept).toBe(4);
    expect(s.dropped).toEqual({ outOfRange: 1, wholeChunk: 1 });
    expect(s.invalidReplies.invalidJson).toBe(1);
    expect(s.invalidReplies.outOfRange).toBe(3); // asked three times, then dropped
    expect(s.teacher.failures['429']).toBe(1);
    expect(s.teacher.failures.timeout).toBe(1);
    expect(s.teacher.promptTokens).toBe(100 * (s.teacher.requests - 2)); // the 429 and the timed-out reply carry no usage
    expect(s.costUsd).toBeCloseTo((s.teacher.promptTokens * 1 + s.teacher.completionTokens * 2) / 1e6, 9);
    expect(calls.slice(before).every((x) => x.auth === 'Bearer sk-test-123')).toBe(true);
    expect(JSON.stringify(s)).not.toContain('sk-test-123');
    // records in the teacher-train layout, lines inside the file, readable by the trainer
    const r = recs.find((x) => x.files[0].path === 'good.py')!;
    expect(Object.keys(r).slice(0, 6)).toEqual(['id', 'repo', 'lang', 'task_type', 'query', 'files']);
    expect(r.files[0]).toMatchObject({ role: 'gold', support_lines: [], anchor_lines: [], hunks: [] });
    expect(r.files[0].gold_lines).toEqual([1, 2, 3, 5]);
    expect(TASK_TYPES).toContain(r.task_type);
    const cases = await readCases(out, 'teacher');
    expect(cases).toHaveLength(4);
    expect(cases[0].agg.length).toBe(4);
  });

  it('rotates the nine task types deterministically', async () => {
    const names = Array.from({ length: 9 }, (_, k) => `good${k}.py`);
    const c = corpus('c2', names);
    const out = join(dir, 'c2.jsonl');
    await runSynth({ ...base, corpus: c, endpoint, out });
    const types = read(out).map((r) => r.task_type);
    expect(new Set(types).size).toBe(9);
  });

  it('drops samples the judge scores under the cutoff', async () => {
    const c = corpus('c3', ['good.py', 'meh.py']);
    const out = join(dir, 'c3.jsonl');
    const s = await runSynth({ ...base, corpus: c, endpoint, out, judgeModel: 'judge', minScore: 3 });
    expect(read(out).map((r) => [r.files[0].path, r.judge_score])).toEqual([['good.py', 5]]);
    expect(s.dropped.judgeLow).toBe(1);
    expect(s.judge!.requests).toBe(2);
  });

  it('resumes after an interruption without redoing finished chunks', async () => {
    const names = Array.from({ length: 8 }, (_, k) => `part${k}.py`);
    const c = corpus('c4', names);
    const out = join(dir, 'c4.jsonl');
    const ctl = new AbortController();
    const first = await runSynth({ ...base, concurrency: 1, corpus: c, endpoint, out, signal: ctl.signal, onDone: (d) => d === 3 && ctl.abort() });
    expect(first.interrupted).toBe(true);
    expect(read(out)).toHaveLength(3);
    // a torn last line (killed mid-write) is cut on restart
    writeFileSync(out, readFileSync(out, 'utf8') + '{"id": "half');
    const before = calls.length;
    const second = await runSynth({ ...base, corpus: c, endpoint, out });
    expect(second.alreadyDone).toBe(3);
    expect(second.attempted).toBe(5);
    const paths = read(out)
      .map((r) => r.files[0].path)
      .sort();
    expect(paths).toEqual([...names].sort());
    const redone = calls.slice(before).map((x) => x.path);
    expect(redone.filter((p) => ['part0.py', 'part1.py', 'part2.py'].includes(p))).toEqual([]);
  });
});
