import { describe, expect, it } from 'vitest';
import { admit } from '../../../src/core/ingest/admit.js';
import { ingestInput } from '../../../src/core/ingest/ingestInput.js';
import { readRequest } from '../../../src/core/pipeline/job.js';
import { READ_POLICY } from '../../../src/core/policy/readPolicy.js';
import { createHeuristicScorer } from '../../../src/core/score/heuristic.js';
import type { PruneRequest } from '../../../src/core/types.js';
import { pythonFunctions } from '../../helpers/stages.js';

function ingested(req: PruneRequest) {
  const job = readRequest(createHeuristicScorer(), req, READ_POLICY);
  const a = admit(job);
  if (a.kind !== 'admitted') throw new Error('not admitted');
  return ingestInput(job, a);
}

const large = pythonFunctions(400);

describe('ingestInput', () => {
  it('ingests the document with the caller path and language', () => {
    const { doc } = ingested({ code: large, query: 'f3', path: 'a.py' });
    expect(doc.segments.map((s) => [s.path, s.language])).toEqual([['a.py', 'python']]);
    expect(doc.lines).toHaveLength(400);
  });

  it('triage: without a query there is nothing to prune, and it says so', () => {
    expect(ingested({ code: large }).keepAll).toEqual({ why: { code: 'no-query', message: 'no query: returned unchanged' } });
  });

  it('triage: a small input is kept whole (unless keepSmall is off), silently', () => {
    const small = pythonFunctions(20);
    expect(ingested({ code: small, query: 'f3' }).keepAll).toEqual({});
    expect(ingested({ code: small, query: 'f3', keepSmall: false }).keepAll).toBeNull();
  });

  it('triage: a budget the input already fits keeps it whole; a large input with a query is pruned', () => {
    expect(ingested({ code: large, tokens: 1_000_000 }).keepAll).toEqual({});
    expect(ingested({ code: large, ratio: 2 }).keepAll).toBeNull();
    expect(ingested({ code: large, query: 'f3' }).keepAll).toBeNull();
  });
});
