/**
 * Runs prune()'s stages one by one, so a test of one stage gets the hand-offs the stages before
 * it would give it (a frozen scorer: `keep` per input line, or the heuristic).
 */
import { admit } from '../../src/core/ingest/admit.js';
import { ingestInput } from '../../src/core/ingest/ingestInput.js';
import { TOKENS } from '../../src/core/layout/measure.js';
import { readRequest } from '../../src/core/pipeline/job.js';
import type { Ingested, PruneJob, ScoredLines, SelectionPlan } from '../../src/core/pipeline/types.js';
import { READ_POLICY } from '../../src/core/policy/readPolicy.js';
import { createRepairer, materializeStyle, type Repairer } from '../../src/core/repair/repairer.js';
import { createHeuristicScorer } from '../../src/core/score/heuristic.js';
import { scoreLines } from '../../src/core/score/scoreLines.js';
import type { SegmentAnalysis } from '../../src/core/syntax/analyse.js';
import { analyse } from '../../src/core/syntax/analyse.js';
import type { PruneRequest, Scorer } from '../../src/core/types.js';

/** A scorer that gives every line of a single-file input the score listed for it. */
export function frozenScorer(keep: number[], docScore = 0.5): Scorer {
  return { name: 'frozen', defaultThreshold: 0.5, score: (input) => ({ keep: Float64Array.from(input.lines.map((_, i) => keep[i] ?? 0)), docScore }) };
}

export interface StagedInput {
  job: PruneJob;
  input: Ingested;
  analyses: SegmentAnalysis[];
  scored: ScoredLines;
  /** The repairer prune() would make for a plan of this strategy. */
  repairer: (strategy: SelectionPlan['strategy']) => Repairer;
}

/** Every stage up to and including scoring (the request must be admitted: not empty, binary or oversized). */
export async function stagesThroughScore(req: PruneRequest, scorer: Scorer = createHeuristicScorer()): Promise<StagedInput> {
  const job = readRequest(scorer, req, READ_POLICY);
  const admitted = admit(job);
  if (admitted.kind !== 'admitted') throw new Error('input not admitted');
  const input = ingestInput(job, admitted);
  const analyses = await analyse(input.doc, req.code, job.diagnostics);
  const scored = scoreLines(job, input, analyses);
  const measure = input.mode.kind === 'budget' ? input.mode.measure : TOKENS;
  const repairer = (strategy: SelectionPlan['strategy']) =>
    createRepairer(input.doc, analyses, { repair: req.repair ?? true, ...materializeStyle(strategy), measure, chars: req.code.length });
  return { job, input, analyses, scored, repairer };
}

/** `n` lines of Python: one function per 4 lines. */
export function pythonFunctions(n: number): string {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) out.push(`def f${i}(x):`, `    y = x + ${i}`, `    return y * ${i}`, '');
  return out.slice(0, n).join('\n') + '\n';
}
