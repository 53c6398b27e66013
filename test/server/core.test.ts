/**
 * The HTTP routes in front of the real pruning core (inline runner) and the worker-thread pool.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createPruner } from '../../src/index.js';
import { createApp } from '../../src/server/app.js';
import { inlineRunner } from '../../src/server/runner.js';
import { createWorkerPool } from '../../src/server/workerPool.js';

const example = (name: string) => readFileSync(fileURLToPath(new URL(`../../examples/${name}`, import.meta.url)), 'utf8');
const SESSION = example('playground-http_session.py');
const CACHE = example('playground-lru_cache.go');
const LIMITER = example('playground-rate_limiter.ts');
const QUESTION = 'How does the session choose which proxy to use for a URL, and when is the proxy bypassed?';

/**
 * These tests compare answers, not speed: no deadline (the default 10 s one fails an answer open
 * on a loaded machine, and the pool's answer then differs from the main thread's). The largest
 * delay a timer takes.
 */
const NO_DEADLINE = 2 ** 31 - 1;
const app = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} });
const post = async (a: typeof app, path: string, body: unknown) =>
  a.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('routes with the real core', () => {
  it('POST /prune: kept_frags are exactly the input lines present in pruned_code', async () => {
    const body = await (await post(app, '/prune', { query: QUESTION, code: SESSION })).json();
    const lines = SESSION.split('\n');
    expect(body.error_msg).toBeNull();
    expect(body.kept_frags.length).toBeGreaterThan(5);
    expect(body.kept_frags.length).toBeLessThan(lines.length - 1);
    expect(body.left_token_cnt).toBeLessThan(body.origin_token_cnt);
    expect(body.pruned_code).toMatch(/lines omitted \(\d+-\d+\)/);
    const out = body.pruned_code.split('\n');
    for (const n of body.kept_frags) expect(out).toContain(lines[n - 1]);
    expect(lines[body.kept_frags.find((n: number) => lines[n - 1].includes('def select_proxy')) - 1]).toMatch(/select_proxy/);
    expect(body.token_scores).toHaveLength(lines.length - 1);
    for (const [text, score] of body.token_scores) {
      expect(typeof text).toBe('string');
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('POST /prune: token_scores are on the scale of its threshold, so re-applying it finds the lines kept by score', async () => {
    const lines = SESSION.split('\n');
    for (const threshold of [undefined, 0.45, 0.7]) {
      const body = await (await post(app, '/prune', { query: QUESTION, code: SESSION, ...(threshold === undefined ? {} : { threshold }) })).json();
      const t = threshold ?? 0.5;
      const passing = body.token_scores.flatMap(([, s]: [string, number], i: number) => (s >= t ? [i + 1] : []));
      expect(passing.length).toBeGreaterThan(0);
      // every line that passes is kept; the other kept lines are syntax context (headers, closers)
      for (const n of passing) expect(body.kept_frags).toContain(n);
      expect(body.kept_frags.length).toBeGreaterThanOrEqual(passing.length);
      expect(passing.length).toBeLessThan(lines.length - 1);
      // exactly the lines the library keeps for their score at that relative threshold
      const lib = await (await post(app, '/v1/prune', { query: QUESTION, code: SESSION, relativeThreshold: t, explain: true })).json();
      const byScore = lib.explain.filter((e: { reason?: string }) => e.reason === 'score').map((e: { line: number }) => e.line);
      expect(passing).toEqual(byScore);
    }
  });

  it('POST /prune: a file judged unrelated has every token_score below the threshold, and they still rank its lines', async () => {
    // The learned model's raw scores include the document score: on an off-topic file they sit far
    // below 0.001. On SWE-Pruner's scale they are below 0.5 and not flattened to one value.
    const code = example('logging.py');
    const body = await (await post(app, '/prune', { query: 'How are CUDA kernels launched on the GPU device?', code })).json();
    expect(body.kept_frags).toEqual([]);
    const scores = body.token_scores.map(([, s]: [string, number]) => s);
    expect(scores).toHaveLength(code.split('\n').length - 1);
    expect(Math.max(...scores)).toBeLessThan(0.5);
    expect(scores.filter((s: number) => s < 0.5).length).toBeGreaterThan(800);
    expect(new Set(scores).size).toBeGreaterThan(20);
  });

  it('POST /prune: input that comes back whole has every line in kept_frags (binary, small, no question)', async () => {
    const binary = 'ELF\u0000\u0001\u0002\nsection .text\u0000\nmain:\n';
    const small = 'import os\n\ndef get_proxy(url):\n    return os.environ.get("HTTPS_PROXY")\n';
    const cases: [string, string, string][] = [
      ['binary', binary, 'What does main do?'],
      ['small', small, 'Which proxy is used?'],
      ['no question', Array.from({ length: 60 }, (_, i) => `def f${i}(x):\n    return x * ${i} + ${(i * 7) % 13}\n`).join(''), ''],
    ];
    for (const [what, code, query] of cases) {
      const body = await (await post(app, '/prune', { query, code })).json();
      const n = code.split('\n').length - 1;
      expect([what, body.pruned_code === code, body.kept_frags]).toEqual([what, true, Array.from({ length: n }, (_, i) => i + 1)]);
      expect(body.left_token_cnt).toBe(body.origin_token_cnt);
    }
  });

  it('POST /v1/prune honours a 4x budget', async () => {
    const r = await (await post(app, '/v1/prune', { code: SESSION, query: QUESTION, path: 'session.py', ratio: 4 })).json();
    expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / 4));
    expect(r.language).toBe('python');
    expect(r.keepMask).toHaveLength(SESSION.split('\n').length - 1);
  });

  it('POST /v1/rank puts the file that answers the question first', async () => {
    const body = await (
      await post(app, '/v1/rank', {
        query: QUESTION,
        documents: [
          { path: 'cache.go', code: CACHE },
          { path: 'session.py', code: SESSION },
          { path: 'limiter.ts', code: LIMITER },
        ],
      })
    ).json();
    expect(body.results[0].path).toBe('session.py');
    expect(body.results[0].score).toBeGreaterThan(body.results[2].score);
  });
});

describe('sessions over HTTP', () => {
  const seenMarker = /lines unchanged since an earlier read \(\d+-\d+\)/;
  it('a second read in the same session folds what the first showed; another session does not', async () => {
    const a = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} });
    const read = (session: string, query?: string) => post(a, '/v1/prune', { code: SESSION, path: 'session.py', session, query }).then((r) => r.json());
    expect((await read('run-1')).text).toBe(SESSION);
    const again = await read('run-1', QUESTION);
    expect(again.text).toMatch(seenMarker);
    expect(again.seenLines).toBeGreaterThan(100);
    expect((await read('run-2')).text).toBe(SESSION);
  });

  it('serves a named range and a read asked again in full, whatever the session was shown', async () => {
    const a = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} });
    const lines = SESSION.split('\n');
    const window = `${lines.slice(19, 60).join('\n')}\n`;
    const read = (body: object) => post(a, '/v1/prune', { path: 'session.py', session: 'x', ...body }).then((r) => r.json());
    expect((await read({ code: SESSION })).text).toBe(SESSION);
    // lines 20-60 as `sed -n 20,60p` shows them, no question: exactly those lines
    expect((await read({ code: window, firstLine: 20 })).text).toBe(window);
    // the same read twice: the second is served as the first was
    const focused = await read({ code: SESSION, query: QUESTION });
    expect(focused.text).toMatch(seenMarker);
    expect((await read({ code: SESSION, query: QUESTION })).text).not.toMatch(seenMarker);
  });

  it('POST /v1/sessions/{id}/forget: nothing folds until shown again; an unknown id answers the same', async () => {
    const a = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} });
    const read = (query?: string) => post(a, '/v1/prune', { code: SESSION, path: 'session.py', session: 'f', query }).then((r) => r.json());
    await read();
    expect((await read(QUESTION)).text).toMatch(seenMarker);
    const forgot = await post(a, '/v1/sessions/f/forget', { path: 'session.py' });
    expect(forgot.status).toBe(200);
    expect((await read('Where is the proxy bypassed?')).text).not.toMatch(seenMarker);
    expect(await (await post(a, '/v1/sessions/nobody/forget', {})).json()).toEqual(await forgot.json());
  });

  it('a batch naming a session runs in order', async () => {
    const a = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} });
    const req = { code: SESSION, path: 'session.py', session: 'b' };
    const body = await (await post(a, '/v1/prune/batch', { requests: [req, { ...req, query: QUESTION }, { ...req, session: 'c' }] })).json();
    expect(body.results[0].text).toBe(SESSION);
    expect(body.results[1].text).toMatch(seenMarker);
    expect(body.results[2].text).toBe(SESSION);
  });

  it('works through the worker pool: the session lives on the main thread', async () => {
    const pool = createWorkerPool({ size: 1 });
    try {
      const a = createApp({ runner: pool, timeoutMs: NO_DEADLINE, log: () => {} });
      const read = (query: string) => post(a, '/v1/prune', { code: SESSION, path: 'session.py', session: 'w', query }).then((r) => r.json());
      const first = await read(QUESTION);
      const second = await read('Where is the proxy bypassed for a URL?');
      expect(first.text).not.toMatch(seenMarker);
      expect(second.text).toMatch(seenMarker);
      expect(second.tokensOut).toBeLessThan(first.tokensOut);
    } finally {
      await pool.close();
    }
  });
});

describe('session memory bounded in bytes, sessions scoped to a client', () => {
  it('new session ids with large bodies and no query: the server holds at most its session budget', async () => {
    const maxBytes = 4_000_000;
    const a = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {}, sessions: { maxBytes, maxSessionBytes: 1_000_000 } });
    const body = SESSION.repeat(20); // ~200 K characters, each read remembered whole
    let peak = 0;
    for (let i = 0; i < 40; i++) {
      expect((await post(a, '/v1/prune', { code: body, path: `f${i}.py`, session: `attack-${i}` })).status).toBe(200);
      const { sessions } = await (await a.request('/health')).json();
      peak = Math.max(peak, sessions.bytes);
      expect(sessions.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(peak).toBeGreaterThan(maxBytes / 2);
    // the latest session still works: a second read (another question: the same read again is served whole) folds
    const again = await (await post(a, '/v1/prune', { code: body, path: 'f39.py', session: 'attack-39', query: QUESTION })).json();
    expect(again.seenLines).toBeGreaterThan(100);
  });

  it("two clients using one session id do not see each other's reads (X-Skim-Client)", async () => {
    const a = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} });
    const read = async (client: string, query?: string) => {
      const r = await a.request('/v1/prune', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-skim-client': client },
        body: JSON.stringify({ code: SESSION, path: 'session.py', session: 'run', query }),
      });
      return r.json();
    };
    expect((await read('alice')).text).toBe(SESSION);
    const probe = await read('mallory');
    expect(probe.text).toBe(SESSION);
    expect(probe.seenLines ?? 0).toBe(0);
    expect((await read('alice', QUESTION)).seenLines).toBeGreaterThan(100);
  });
});

describe('sessions through the worker pool, as on the main thread', () => {
  it('a file read, a grep over it and grep over another file, then the file again: the same answers', async () => {
    const lines = SESSION.split('\n');
    const grep = [10, 11, 12, 40, 41].map((i) => `session.py:${i}:${lines[i - 1]}`).join('\n') + `\nother.py:3:import os\n`;
    const reads = [
      { code: SESSION, path: 'session.py', query: QUESTION },
      { code: grep, query: QUESTION },
      { code: SESSION, path: 'session.py', query: 'Which proxy is used for a URL?' },
      { code: SESSION, path: './session.py', query: 'where is the proxy bypassed?' },
    ];
    const pool = createWorkerPool({ size: 2 });
    try {
      const answers = async (a: ReturnType<typeof createApp>) => {
        const out: string[] = [];
        for (const r of reads) out.push((await (await post(a, '/v1/prune', { ...r, session: 's' })).json()).text);
        return out;
      };
      const viaPool = await answers(createApp({ runner: pool, timeoutMs: NO_DEADLINE, log: () => {} }));
      const inline = await answers(createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} }));
      expect(viaPool).toEqual(inline);
      expect(viaPool[2]).toMatch(/unchanged since an earlier read/);
    } finally {
      await pool.close();
    }
  });
});

describe('answers serialized in the worker', () => {
  it('batch, SWE-Pruner wire and a 2 MB answer (sent in pieces) match the main thread byte for byte', async () => {
    const pool = createWorkerPool({ size: 2 });
    try {
      const big = ' '.repeat(2_000_000);
      const calls: Array<[string, unknown]> = [
        [
          '/v1/prune/batch',
          {
            requests: [
              { code: SESSION, query: QUESTION, ratio: 4 },
              { code: 'x = 1\n', query: 'x' },
            ],
          },
        ],
        ['/prune', { code: SESSION, query: QUESTION }],
        ['/v1/prune', { code: big, query: QUESTION }],
      ];
      const viaPool = createApp({ runner: pool, timeoutMs: NO_DEADLINE, log: () => {} });
      const inline = createApp({ runner: inlineRunner(createPruner()), timeoutMs: NO_DEADLINE, log: () => {} });
      for (const [path, body] of calls) {
        const [a, b] = await Promise.all([post(viaPool, path, body), post(inline, path, body)]);
        expect(a.headers.get('content-type')).toMatch(/application\/json/);
        const [ta, tb] = [await a.text(), await b.text()];
        // `ms` differs from run to run
        const norm = (t: string) => t.replace(/"ms":[\d.]+/g, '"ms":0');
        expect(norm(ta)).toBe(norm(tb));
      }
      // bodies the client has to fix, read in the worker: the same 400 answers as on the main thread
      const raw = (a: ReturnType<typeof createApp>, path: string, body: string) =>
        a.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      for (const [path, body] of [
        ['/v1/prune', ''],
        ['/v1/prune', '{"code": '],
        ['/v1/prune', '{"code": 5}'],
        ['/v1/prune', JSON.stringify({ code: 'x\n', ratio: 2, tokens: 3 })],
        ['/prune', '{"code": "x"}'],
        ['/v1/prune', '\uFEFF' + JSON.stringify({ code: 'x = 1\n', query: 'x' })],
      ] as const) {
        const [a, b] = await Promise.all([raw(viaPool, path, body), raw(inline, path, body)]);
        expect([a.status, (await a.text()).replace(/"ms":[\d.]+/g, '')]).toEqual([b.status, (await b.text()).replace(/"ms":[\d.]+/g, '')]);
      }
    } finally {
      await pool.close();
    }
  });
});

describe('worker-thread pool', () => {
  const pool = createWorkerPool({ size: 1 });
  afterAll(() => pool.close());

  it('gives the same result as pruning on the main thread', async () => {
    const req = { code: SESSION, query: QUESTION, path: 'session.py' };
    const [a, b] = await Promise.all([pool.prune(req), createPruner().prune(req)]);
    expect(a.text).toBe(b.text);
    expect(Array.from(a.keepMask)).toEqual(Array.from(b.keepMask));
  });

  it('cuts a request off at its deadline (fail-open) and keeps serving with a fresh worker', async () => {
    const a = createApp({ runner: pool, timeoutMs: 30, maxConcurrent: 1, log: () => {} });
    const huge = Array.from({ length: 40 }, () => SESSION).join('\n');
    const res = await (await post(a, '/v1/prune', { code: huge, query: QUESTION })).json();
    expect(res.error).toMatch(/time limit of 30 ms/);
    expect(res.text).toBe(huge);
    const ok = await pool.prune({ code: SESSION, query: QUESTION, relativeThreshold: 0.5 });
    expect(ok.omitted.length).toBeGreaterThan(0);
  });
});
