import { describe, expect, it } from 'vitest';
import { diagnostic } from '../../../src/core/diagnostics.js';
import { ingest } from '../../../src/core/ingest/ingest.js';
import { readRequest } from '../../../src/core/pipeline/job.js';
import { READ_POLICY } from '../../../src/core/policy/readPolicy.js';
import { wholeOf, wholeResult } from '../../../src/core/render/whole.js';
import { createHeuristicScorer } from '../../../src/core/score/heuristic.js';

describe('wholeResult', () => {
  it('keeps every line, omits none, and says why in warnings and diagnostics alike', () => {
    const why = diagnostic('binary-input', 'binary input returned unchanged');
    const r = wholeResult('a\nb\nc', { tokensIn: 5, score: 1, language: 'text', diagnostics: [why] });
    expect(r).toMatchObject({
      text: 'a\nb\nc',
      kept: [[1, 3]],
      omitted: [],
      tokensIn: 5,
      tokensOut: 5,
      shape: 'raw',
      warnings: [why.message],
      diagnostics: [why],
    });
    expect([...r.keepMask]).toEqual([1, 1, 1]);
    expect('tokensEstimated' in r).toBe(false);
  });

  it('flags estimated token counts, and has no ranges for empty input', () => {
    expect(wholeResult('', { tokensIn: 0, tokensEstimated: true, score: 0, language: 'unknown', diagnostics: [] })).toMatchObject({
      kept: [],
      tokensEstimated: true,
      language: 'unknown',
    });
  });
});

describe('wholeOf', () => {
  it("adds the stage's reason to the job's diagnostics and takes language, shape and lines from the document", () => {
    const code = '     1\tx = 1\n     2\ty = 2\n';
    const job = readRequest(createHeuristicScorer(), { code }, READ_POLICY);
    const doc = ingest(code, { language: 'python', detectLanguage: () => 'text' });
    const r = wholeOf(job, { kind: 'whole', why: diagnostic('no-query', 'no query: returned unchanged'), score: 1, extra: { scorer: 'heuristic' } }, 9, doc);
    expect(r).toMatchObject({
      text: code,
      language: 'python',
      shape: 'numbered',
      kept: [[1, 2]],
      tokensIn: 9,
      scorer: 'heuristic',
      warnings: ['no query: returned unchanged'],
    });
    expect(job.diagnostics.map((d) => d.code)).toEqual(['no-query']);
  });
});
