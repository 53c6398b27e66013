/** The fail-open answer made in pieces is the fail-open result (and SWE-Pruner's response to it). */
import { describe, expect, it } from 'vitest';
import { failOpenPieces, failOpenResult, toSwePrunerResponse } from '../../src/server/serialize.js';

describe('failOpenPieces', () => {
  const inputs = ['', 'x', 'a\nb\n', 'a\r\nb', '"quoted" \\ \u2028 \uD800 \u0000\n'.repeat(3), 'line\n'.repeat(70_000)];
  it('says what failOpenResult and toSwePrunerResponse say, in every format', () => {
    for (const code of inputs) {
      const req = { code, query: 'where?' };
      const started = 0; // ms is left out of the comparison
      const v1 = JSON.parse([...failOpenPieces(req, 'time limit of 10 ms exceeded', started, 'v1')].join(''));
      const obj = failOpenResult(req, 'time limit of 10 ms exceeded', started);
      expect({ ...v1, ms: 0 }).toEqual(JSON.parse(JSON.stringify({ ...obj, ms: 0 })));
      const swe = JSON.parse([...failOpenPieces(req, 'time limit of 10 ms exceeded', started, 'swe')].join(''));
      expect(swe).toEqual(JSON.parse(JSON.stringify(toSwePrunerResponse(req.query, code, obj))));
    }
  });
});

describe('failOpenResult', () => {
  it('is the input whole, with the reason as an error, a warning and a not-pruned diagnostic', () => {
    const r = failOpenResult({ code: 'a\nb\n', language: 'python' }, 'time limit of 10 ms exceeded', 0);
    expect(r).toMatchObject({
      text: 'a\nb\n',
      kept: [[1, 2]],
      omitted: [],
      keepMask: [1, 1],
      score: 0,
      tokensEstimated: true,
      language: 'python',
      error: 'time limit of 10 ms exceeded',
      warnings: ['not pruned: time limit of 10 ms exceeded'],
      diagnostics: [{ code: 'not-pruned', message: 'not pruned: time limit of 10 ms exceeded' }],
    });
  });
});
