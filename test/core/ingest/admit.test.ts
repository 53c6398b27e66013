import { describe, expect, it } from 'vitest';
import { admit, estimateTokenCount, looksBinary, overCeiling } from '../../../src/core/ingest/admit.js';
import { MAX_PRUNE_CHARS, MAX_PRUNE_LINES } from '../../../src/core/limits.js';
import { readRequest } from '../../../src/core/pipeline/job.js';
import { READ_POLICY } from '../../../src/core/policy/readPolicy.js';
import { createHeuristicScorer } from '../../../src/core/score/heuristic.js';
import { countTokens } from '../../../src/core/tokens/count.js';
import type { PruneRequest } from '../../../src/core/types.js';

const admitted = (req: PruneRequest) => admit(readRequest(createHeuristicScorer(), req, READ_POLICY));

describe('admit', () => {
  it('returns empty, oversized and binary input whole, each with its code', () => {
    expect(admitted({ code: '' })).toMatchObject({ kind: 'whole', score: 1, tokensIn: 0, why: { code: 'empty-input' } });
    const big = 'x'.repeat(MAX_PRUNE_CHARS + 1);
    expect(admitted({ code: big, ratio: 2 })).toMatchObject({
      kind: 'whole',
      tokensEstimated: true,
      tokensIn: estimateTokenCount(big),
      why: { code: 'over-ceiling' },
    });
    expect(admitted({ code: 'a\u0000b' })).toMatchObject({ kind: 'whole', why: { code: 'binary-input', message: 'binary input returned unchanged' } });
  });

  it('counts the tokens once and reads the mode: threshold, or a budget in tokens or characters', () => {
    const code = 'def f(x):\n    return x + 1\n';
    const tokensIn = countTokens(code);
    expect(admitted({ code, query: 'f' })).toEqual({ kind: 'admitted', tokensIn, mode: { kind: 'threshold', tau: { kind: 'calibrated' } } });
    const byRatio = admitted({ code, ratio: 2 });
    expect(byRatio.kind === 'admitted' && byRatio.mode).toMatchObject({ kind: 'budget', budget: Math.floor(tokensIn / 2), measure: { unit: 'tokens' } });
    const byChars = admitted({ code, maxChars: 10 });
    expect(byChars.kind === 'admitted' && byChars.mode).toMatchObject({ kind: 'budget', budget: 10, measure: { unit: 'characters' } });
    const byTokens = admitted({ code, tokens: 7 });
    expect(byTokens.kind === 'admitted' && byTokens.mode).toMatchObject({ kind: 'budget', budget: 7, measure: { unit: 'tokens' } });
  });
});

describe('the admission checks', () => {
  it('overCeiling names the limit crossed', () => {
    expect(overCeiling('x\n'.repeat(MAX_PRUNE_LINES + 1))).toMatch(/longer than 200,000 lines/);
    expect(overCeiling('x\n')).toBeNull();
  });

  it('looksBinary: NUL bytes or many control characters; tabs and form feeds are text', () => {
    expect(looksBinary('\u0001\u0002\u0003abc')).toBe(true);
    expect(looksBinary('a\tb\fc\r\n')).toBe(false);
  });
});
