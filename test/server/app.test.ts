/**
 * The HTTP layer through app.request(): routes, wire formats, limits and the error boundary.
 * A fake runner isolates the server's behaviour from the pruning core (see core.test.ts for the
 * real pipeline behind the same routes).
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AppOptions, createApp } from '../../src/server/app.js';
import { fakeRunner } from './fakeRunner.js';

const quiet = { log: () => {} };
const CODE = 'import os\n\ndef get_proxy(url):\n    return os.environ.get("HTTPS_PROXY")\n\ndef unrelated():\n    pass\n';

function app(opts: Partial<AppOptions> = {}) {
  return createApp({ runner: fakeRunner(), ...quiet, ...opts });
}

function post(a: ReturnType<typeof createApp>, path: string, body: unknown) {
  return a.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('POST /prune (SWE-Pruner wire format)', () => {
  it('answers with every SWE-Pruner response field and 1-based kept line numbers', async () => {
    const res = await post(app(), '/prune', { query: 'which proxy', code: CODE, threshold: 0.5, chunk_overlap_tokens: 50, extra: 1 });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(
      ['error_msg', 'kept_frags', 'left_token_cnt', 'model_input_token_cnt', 'origin_token_cnt', 'pruned_code', 'score', 'token_scores'].sort(),
    );
    expect(body.kept_frags).toEqual([3, 4]); // the two lines that mention "proxy"
    expect(body.pruned_code).toBe('def get_proxy(url):\n    return os.environ.get("HTTPS_PROXY")');
    expect(body.error_msg).toBeNull();
    expect(body.token_scores).toHaveLength(7);
    expect(body.token_scores[2]).toEqual(['def get_proxy(url):', 1]);
    expect(body.origin_token_cnt).toBe(CODE.length);
    expect(body.model_input_token_cnt).toBeGreaterThan(body.origin_token_cnt);
  });

  it("maps a SWE-Pruner threshold in [0,1] onto the calibrated scale; one outside it, or none, is SWE-Pruner's default 0.5", async () => {
    const runner = fakeRunner();
    const a = app({ runner });
    await post(a, '/prune', { query: 'q', code: CODE, threshold: 0.3 });
    await post(a, '/prune', { query: 'q', code: CODE, threshold: 7 });
    await post(a, '/prune', { query: 'q', code: CODE });
    expect(runner.calls.map((c) => [c.threshold, c.relativeThreshold])).toEqual([
      [undefined, 0.3],
      [undefined, 0.5],
      [undefined, 0.5],
    ]);
  });

  it('rejects a request without code with a JSON 400', async () => {
    const res = await post(app(), '/prune', { query: 'q' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.status).toBe(400);
    expect(body.error.message).toMatch(/code/);
  });
});

describe('POST /v1/prune', () => {
  it('returns the PruneResult with plain arrays', async () => {
    const res = await post(app(), '/v1/prune', { code: CODE, query: 'proxy', explain: true, unknownField: true });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.keepMask).toEqual([0, 0, 1, 1, 0, 0, 0]);
    expect(body.kept).toEqual([[3, 4]]);
    expect(body.explain).toHaveLength(7);
  });

  it('turns invalid JSON, wrong types and core usage errors into 400s', async () => {
    expect((await post(app(), '/v1/prune', '{"code": ')).status).toBe(400);
    expect((await post(app(), '/v1/prune', '')).status).toBe(400);
    expect((await post(app(), '/v1/prune', { code: 5 })).status).toBe(400);
    expect((await post(app(), '/v1/prune', { code: 'x', ratio: 0.5 })).status).toBe(400);
    const usage = await post(app({ runner: fakeRunner({ usageError: 'give either ratio or tokens' }) }), '/v1/prune', { code: 'x' });
    expect(usage.status).toBe(400);
    expect((await usage.json()).error.message).toMatch(/ratio or tokens/);
  });

  it('accepts a body sent without a JSON content type (curl -d)', async () => {
    const res = await app().request('/v1/prune', { method: 'POST', body: JSON.stringify({ code: CODE, query: 'proxy' }) });
    expect(res.status).toBe(200);
  });
});

describe('limits', () => {
  it('refuses a body over the size limit with 413', async () => {
    const res = await post(app({ maxBodyBytes: 1000 }), '/v1/prune', { code: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect((await res.json()).error.message).toMatch(/larger than 1000 bytes/);
  });

  it('fails open on timeout: original text, every line kept, error message', async () => {
    const a = app({ runner: fakeRunner({ delayMs: 300 }), timeoutMs: 50 });
    const res = await post(a, '/prune', { query: 'proxy', code: CODE });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pruned_code).toBe(CODE);
    expect(body.kept_frags).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(body.error_msg).toMatch(/time limit of 50 ms/);
    const v1 = await (await post(a, '/v1/prune', { query: 'proxy', code: CODE })).json();
    expect(v1.text).toBe(CODE);
    expect(v1.omitted).toEqual([]);
    expect(v1.error).toMatch(/time limit/);
  });

  it('fails open when the core throws', async () => {
    const res = await post(app({ runner: fakeRunner({ fail: 'boom' }) }), '/prune', { query: 'q', code: CODE });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.pruned_code).toBe(CODE);
    expect(body.error_msg).toBe('prune failed: boom');
  });

  it('answers 503 with Retry-After when all slots and the queue are taken', async () => {
    const a = app({ runner: fakeRunner({ delayMs: 200 }), maxConcurrent: 1, maxQueue: 1 });
    const statuses = await Promise.all([1, 2, 3].map(() => post(a, '/v1/prune', { code: CODE, query: 'proxy' })));
    const codes = statuses.map((r) => r.status).sort();
    expect(codes).toEqual([200, 200, 503]);
    const busy = statuses.find((r) => r.status === 503)!;
    expect(busy.headers.get('retry-after')).toBe('1');
    expect((await busy.json()).error.message).toMatch(/busy/);
  });
});

describe('batch and rank', () => {
  it('prunes a batch in order', async () => {
    const res = await post(app(), '/v1/prune/batch', {
      requests: [
        { code: CODE, query: 'proxy' },
        { code: CODE, query: 'unrelated' },
      ],
    });
    const body = await res.json();
    expect(body.results.map((r: { kept: unknown }) => r.kept)).toEqual([[[3, 4]], [[6, 6]]]);
  });

  it('orders documents by document score, ties in request order', async () => {
    const res = await post(app(), '/v1/rank', {
      query: 'proxy environ',
      documents: [{ id: 'a', code: 'x\ny\nz\n' }, { id: 'b', path: 'b.py', code: CODE }, 'proxy\nenviron\n', { id: 'd', code: 'w\n' }],
    });
    const body = await res.json();
    expect(body.results.map((r: { index: number }) => r.index)).toEqual([2, 1, 0, 3]);
    expect(body.results[1]).toMatchObject({ id: 'b', path: 'b.py' });
    expect(body.results[0].score).toBe(1);
  });

  it('rejects an empty document list', async () => {
    expect((await post(app(), '/v1/rank', { query: 'q', documents: [] })).status).toBe(400);
  });
});

describe('other routes', () => {
  it('health, info and JSON 404', async () => {
    const a = app({ model: 'test-model', languages: () => ['python'] });
    expect(await (await a.request('/health')).json()).toMatchObject({ status: 'healthy' });
    const info = await (await a.request('/v1/info')).json();
    expect(info).toMatchObject({ name: 'skim', model: 'test-model', languages: ['python'], runner: 'fake' });
    expect(typeof info.version).toBe('string');
    const missing = await a.request('/nope');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toMatch(/no route/);
  });

  it('serves the playground page and the examples, refusing paths outside them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skim-examples-'));
    writeFileSync(join(dir, 'playground-a.py'), 'print(1)\n');
    const a = app({ examplesDir: dir });
    const page = await a.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toMatch(/<title>/);
    expect(await (await a.request('/examples')).json()).toEqual({ examples: [{ name: 'playground-a.py', bytes: 9 }] });
    expect(await (await a.request('/examples/playground-a.py')).text()).toBe('print(1)\n');
    expect((await a.request('/examples/..%2Fpackage.json')).status).toBe(404);
    expect((await a.request('/examples/nope.py')).status).toBe(404);
  });
});

describe('methods', () => {
  // Every route with a method it does not serve, and the methods its Allow header must name.
  const WRONG: [method: string, path: string, allow: string][] = [
    ['GET', '/prune', 'POST'],
    ['GET', '/v1/prune', 'POST'],
    ['PUT', '/v1/prune/batch', 'POST'],
    ['GET', '/v1/rank', 'POST'],
    ['DELETE', '/v1/outputs/3fa2c1d9e0', 'GET, HEAD'],
    ['GET', '/v1/sessions/run-1/forget', 'POST'],
    ['POST', '/health', 'GET, HEAD'],
    ['DELETE', '/v1/info', 'GET, HEAD'],
    ['POST', '/', 'GET, HEAD'],
    ['POST', '/examples', 'GET, HEAD'],
    ['PATCH', '/examples/playground-a.py', 'GET, HEAD'],
    ['POST', '/playground.js', 'GET, HEAD'],
  ];

  it('answers a known route asked with another method with 405 and an Allow header', async () => {
    const runner = fakeRunner();
    const a = app({ runner });
    for (const [method, path, allow] of WRONG) {
      const res = await a.request(path, { method, body: method === 'GET' ? undefined : JSON.stringify({ code: CODE }) });
      expect([method, path, res.status, res.headers.get('allow')]).toEqual([method, path, 405, allow]);
      const body = await res.json();
      expect(body.error.status).toBe(405);
      expect(body.error.message).toBe(`${method} is not allowed on ${path}; use ${allow.replace(', ', ' or ')}`);
    }
    expect(runner.calls).toEqual([]);
    // the list above covers every route the app has
    const paths = new Set(a.routes.filter((r) => r.method !== 'ALL').map((r) => r.path));
    expect(paths.size).toBe(WRONG.length);
  });

  it('serves HEAD with GET, and an unknown path stays a 404', async () => {
    const a = app();
    expect((await a.request('/health', { method: 'HEAD' })).status).toBe(200);
    const missing = await a.request('/nope', { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('allow')).toBeNull();
  });
});

describe('languages', () => {
  it('refuses an unknown language with a 400 that lists the supported ones', async () => {
    const runner = fakeRunner();
    const a = app({ runner });
    for (const [path, body] of [
      ['/v1/prune', { code: CODE, language: 'cobol' }],
      [
        '/v1/prune/batch',
        {
          requests: [
            { code: CODE, language: 'python' },
            { code: CODE, language: 'cobol' },
          ],
        },
      ],
      ['/v1/rank', { query: 'proxy', documents: [{ code: CODE, language: 'cobol' }] }],
    ] as const) {
      const res = await post(a, path, body);
      expect(res.status).toBe(400);
      const { message } = (await res.json()).error;
      expect(message).toMatch(/unknown language "cobol"; supported: /);
      for (const name of ['python', 'typescript', 'go', 'c_sharp', 'kotlin', 'yaml', 'text']) expect(message).toContain(name);
    }
    expect(runner.calls).toEqual([]);
  });

  it('still accepts the canonical names and their aliases', async () => {
    const runner = fakeRunner();
    const a = app({ runner });
    const names = ['python', 'py', 'Python3', 'ts', 'TypeScript', 'tsx', 'golang', 'c++', 'C#', 'cs', '.rs', 'bash', 'yml', 'txt', 'unknown', ''];
    for (const language of names) expect([language, (await post(a, '/v1/prune', { code: CODE, language })).status]).toEqual([language, 200]);
    expect(runner.calls.map((c) => c.language)).toEqual(names);
  });
});
