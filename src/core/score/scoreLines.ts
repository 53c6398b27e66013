/**
 * Score stage: a keep probability for every input line, from the scorer, per segment (file), for
 * the read's query and, when the run has one, its task (a line keeps the better of the two).
 * Scores never fail the request: a scorer that throws or returns NaN is stood in for by the
 * heuristic, with a diagnostic.
 */
import { type Diagnostic, diagnostic } from '../diagnostics.js';
import type { Ingested, PruneJob, ScoredLines } from '../pipeline/types.js';
import type { SegmentAnalysis } from '../syntax/analyse.js';
import type { LineScores, ScoreInput, Scorer } from '../types.js';
import { createHeuristicScorer } from './heuristic.js';

/** Scores that can decide something: every keep probability and the document score are finite. */
export function finiteScores(s: LineScores): boolean {
  if (!Number.isFinite(s.docScore)) return false;
  for (let i = 0; i < s.keep.length; i++) if (!Number.isFinite(s.keep[i])) return false;
  return true;
}

export function scoreLines(job: PruneJob, input: Ingested, analyses: SegmentAnalysis[]): ScoredLines {
  const { doc, keepAll } = input;
  const n = doc.lines.length;
  const probs = new Float64Array(n);
  const prior = new Float64Array(n);
  const gate = job.explain ? new Float64Array(n).fill(NaN) : null;
  const guarded = new GuardedScorer(job.scorer, input.mode.kind === 'budget', job.diagnostics);
  let docScore = 0;
  let docWeight = 0;
  doc.segments.forEach((seg, s) => {
    const { syntax, texts } = analyses[s];
    const inputFor = (query: string): ScoreInput => ({ query, lines: texts, syntax, language: seg.language, path: seg.path });
    // Nothing will be pruned for the question: no scores are needed (the result's score is 0).
    const scores: LineScores = keepAll ? { keep: new Float64Array(texts.length), docScore: 0 } : guarded.score(inputFor(job.query));
    // A line that serves the run's task is worth keeping even when this read's goal is narrower.
    if (job.task !== '' && !keepAll) {
      const byTask = guarded.score(inputFor(job.task));
      for (let k = 0; k < texts.length; k++) scores.keep[k] = Math.max(scores.keep[k], byTask.keep[k]);
      scores.docScore = Math.max(scores.docScore, byTask.docScore);
    }
    seg.lines.forEach((idx, k) => {
      probs[idx] = scores.keep[k] ?? 0;
      const kind = syntax.lines[k]?.kind;
      prior[idx] = kind === 'header' ? 2 : kind === 'import' ? 1 : 0;
      if (gate && scores.gateSemantic) gate[idx] = scores.gateSemantic[k];
    });
    docScore += scores.docScore * seg.lines.length;
    docWeight += seg.lines.length;
  });
  return { probs, prior, gate, docScore: docWeight ? docScore / docWeight : 0, nonFinite: guarded.nonFinite };
}

/** The scorer, with the heuristic standing in where it throws or gives non-finite scores. */
class GuardedScorer {
  nonFinite = false;

  constructor(
    private readonly scorer: Scorer,
    private readonly budgetMode: boolean,
    private readonly diagnostics: Diagnostic[],
  ) {}

  score(input: ScoreInput): LineScores {
    const { name } = this.scorer;
    try {
      const s = this.scorer.score(input);
      if (finiteScores(s)) return s;
      // NaN never decides anything: threshold mode returns the input whole, a budget (which must
      // hold) ranks by the heuristic scores instead
      if (!this.nonFinite) {
        const outcome = this.budgetMode ? '; heuristic used' : ': returned unchanged';
        this.diagnostics.push(diagnostic('scorer-non-finite', `scorer ${name} produced non-finite scores (NaN or infinite)${outcome}`));
      }
      this.nonFinite = true;
    } catch (err) {
      this.diagnostics.push(diagnostic('scorer-failed', `scorer ${name} failed (${(err as Error).message}); heuristic used`));
    }
    return createHeuristicScorer().score(input);
  }
}
