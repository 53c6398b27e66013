/**
 * Render stage: the selected output joined and counted, its ranges, and what a caller should be
 * told about it. An output that saves nothing (markers cost tokens too) is worse than the input:
 * threshold mode then returns the input whole.
 */
import { diagnostic, hasCode, messagesOf } from '../diagnostics.js';
import { fileRanges, joinPieces, maskRanges, piecesRuns } from '../layout/layout.js';
import { round4 } from '../pipeline/round.js';
import type { Ingested, PruneJob, ScoredLines, Selection, SelectionPlan } from '../pipeline/types.js';
import { doubtAbout } from '../policy/confidence.js';
import { pinnedIndexes } from '../select/plan.js';
import { countTokens } from '../tokens/count.js';
import type { PruneResult } from '../types.js';
import { explainLines } from './explain.js';
import { wholeOf } from './whole.js';

export function renderResult(job: PruneJob, input: Ingested, scored: ScoredLines, plan: SelectionPlan, selection: Selection): PruneResult {
  const { scorer, diagnostics } = job;
  const { doc, tokensIn, mode } = input;
  const { chosen, thresholdInfo } = selection;
  const n = doc.lines.length;
  const text = joinPieces(chosen.pieces);
  const tokensOut = countTokens(text);
  const score = round4(scored.docScore);
  const policy = plan.decision ? { policy: plan.decision.label } : {};
  if (mode.kind === 'threshold' && tokensOut >= tokensIn) {
    // The scores still go out: a caller asked for them, and they say which lines would have been kept.
    const r = wholeOf(job, { kind: 'whole', score, extra: { scorer: scorer.name, ...thresholdInfo, ...policy } }, tokensIn, doc);
    if (job.explain) r.explain = explainLines(doc, scored, chosen, r.keepMask);
    return r;
  }
  const keptNone = n > 0 && !chosen.mask.some((v, i) => v === 1 && doc.lines[i].segment !== -1);
  if (mode.kind === 'budget' && keptNone && !hasCode(diagnostics, 'budget-too-small'))
    diagnostics.push(
      diagnostic('budget-too-small', `budget of ${mode.budget} ${mode.measure.unit} too small to keep any line with the context it needs: every line omitted`),
    );
  if (mode.kind === 'budget') {
    const dropped = droppedPins(job, input, chosen.mask);
    if (dropped.length > 0) {
      const named = dropped.slice(0, 5).join(', ') + (dropped.length > 5 ? ` and ${dropped.length - 5} more` : '');
      diagnostics.push(
        diagnostic(
          'pin-dropped',
          `pinned line${dropped.length > 1 ? 's' : ''} ${named} omitted: the budget cannot keep ${dropped.length > 1 ? 'them' : 'it'} with the context ${dropped.length > 1 ? 'they need' : 'it needs'}`,
        ),
      );
    }
  }
  // A whole file omitted is a judgement about the file, not a failure: say so, so a caller can
  // tell "unrelated to the question" from "lost" and read it another way if the judgement is wrong.
  if (plan.strategy === 'threshold' && keptNone && !doc.seen)
    diagnostics.push(
      diagnostic(
        'nothing-relevant',
        `no line reached the threshold (${thresholdInfo?.threshold}): everything was omitted as unrelated to the question (document score ${score})`,
      ),
    );
  if (plan.strategy === 'threshold' && !keptNone && chosen.mask.includes(0)) {
    const doubt = doubtAbout({
      best: bestContentScore(input, scored),
      calibrated: thresholdInfo?.calibratedThreshold ?? 0,
      chars: job.code.length,
      decision: plan.decision,
    });
    if (doubt) diagnostics.push(doubt);
  }
  const result: PruneResult = {
    text,
    kept: maskRanges(chosen.mask, 1),
    // One range per marker: runs split where the file changes (grep/multi input) and after a block a placeholder fills.
    omitted: chosen.wholeMarker ? [[1, n]] : piecesRuns(chosen.pieces).map((r): [number, number] => [r.start + 1, r.end + 1]),
    ...(doc.shape === 'raw' ? {} : { files: fileRanges(doc, chosen.mask, chosen.wholeMarker ? undefined : piecesRuns(chosen.pieces)) }),
    score,
    tokensIn,
    tokensOut,
    language: doc.segments[0]?.language ?? 'text',
    ms: 0,
    shape: doc.shape,
    scorer: scorer.name,
    ...thresholdInfo,
    ...policy,
    warnings: messagesOf(diagnostics),
    diagnostics,
    keepMask: chosen.mask,
  };
  if (doc.seen) result.seenLines = doc.seen.reduce((a, v, i) => a + (v && !chosen.mask[i] ? 1 : 0), 0);
  if (job.explain) result.explain = explainLines(doc, scored, chosen, chosen.mask);
  result.ms = round4(performance.now() - job.started);
  return result;
}

/** Pinned lines (1-based) a budget left out, not folded as seen before (that is no loss). */
function droppedPins(job: PruneJob, { doc }: Ingested, mask: Uint8Array): number[] {
  const dropped = pinnedIndexes(doc, job.pinLines).filter((i) => !doc.seen?.[i] && mask[i] !== 1);
  return [...new Set(dropped)].sort((a, b) => a - b).map((i) => i + 1);
}

/** The best keep probability of a line of content (layout lines and pinned lines aside). */
function bestContentScore(input: Ingested, scored: ScoredLines): number {
  let best = 0;
  input.doc.lines.forEach((l, i) => {
    const p = scored.probs[i];
    if (l.segment !== -1 && p <= 1 && p > best) best = p;
  });
  return best;
}
