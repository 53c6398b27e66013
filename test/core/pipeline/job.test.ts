import { describe, expect, it } from 'vitest';
import { diagnostic } from '../../../src/core/diagnostics.js';
import { MAX_QUERY_CHARS } from '../../../src/core/limits.js';
import { queryAsRead, readRequest } from '../../../src/core/pipeline/job.js';
import { READ_POLICY } from '../../../src/core/policy/readPolicy.js';
import { createHeuristicScorer } from '../../../src/core/score/heuristic.js';
import type { PruneRequest } from '../../../src/core/types.js';

const heuristic = createHeuristicScorer();

describe('readRequest', () => {
  it('reads the query and task trimmed, and the language normalized', () => {
    const job = readRequest(heuristic, { code: 'x = 1\n', query: '  where is x?  ', task: ' fix x ', language: 'py' }, READ_POLICY);
    expect(job.query).toBe('where is x?');
    expect(job.task).toBe('fix x');
    expect(job.language).toBe('python');
    expect(job.diagnostics).toEqual([]);
  });

  it('decides the mode once: one budget, else a threshold (the given τ over a relative one, else the calibrated τ)', () => {
    const modeOf = (req: Omit<PruneRequest, 'code'>) => readRequest(heuristic, { code: 'x', ...req }, READ_POLICY).mode;
    expect(modeOf({ ratio: 2 })).toEqual({ kind: 'ratio', ratio: 2 });
    expect(modeOf({ tokens: 0 })).toEqual({ kind: 'tokens', tokens: 0 });
    expect(modeOf({ maxChars: 300 })).toEqual({ kind: 'chars', chars: 300 });
    expect(modeOf({ threshold: 0.2, relativeThreshold: 0.9 })).toEqual({ kind: 'threshold', tau: { kind: 'given', tau: 0.2 } });
    expect(modeOf({ relativeThreshold: 0.9 })).toEqual({ kind: 'threshold', tau: { kind: 'relative', relative: 0.9 } });
    expect(modeOf({})).toEqual({ kind: 'threshold', tau: { kind: 'calibrated' } });
  });

  it('applies the defaults once: repair and small-input keeping on, explain off, no pins', () => {
    const job = readRequest(heuristic, { code: 'x' }, READ_POLICY);
    expect(job).toMatchObject({ code: 'x', repair: true, keepSmall: true, explain: false, pinLines: [] });
    expect(readRequest(heuristic, { code: 'x', repair: false, keepSmall: false, explain: true, pinLines: [3] }, READ_POLICY)).toMatchObject({
      repair: false,
      keepSmall: false,
      explain: true,
      pinLines: [3],
    });
  });

  it('caps a long query, with a diagnostic', () => {
    const job = readRequest(heuristic, { code: 'x', query: 'q'.repeat(MAX_QUERY_CHARS + 5) }, READ_POLICY);
    expect(job.query).toHaveLength(MAX_QUERY_CHARS);
    expect(job.diagnostics.map((d) => d.code)).toEqual(['query-truncated']);
    expect(queryAsRead(null)).toBe('');
  });

  it("starts from the scorer's own diagnostics (a model it stands in for), without sharing the list", () => {
    const why = diagnostic('model-unavailable', 'learned model not used: x; heuristic scorer used instead');
    const scorer = { ...heuristic, diagnostics: [why] };
    const job = readRequest(scorer, { code: 'x' }, READ_POLICY);
    job.diagnostics.push(diagnostic('empty-input', 'empty input'));
    expect(job.diagnostics[0]).toBe(why);
    expect(scorer.diagnostics).toHaveLength(1);
  });
});
