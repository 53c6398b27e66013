/**
 * Ingest stage: the admitted input as a Document (shape, prefixes, per-file segments), the lines
 * session memory was shown before, and the triage: is there anything to prune for this request?
 */
import { diagnostic } from '../diagnostics.js';
import { SMALL_INPUT_LINES, SMALL_INPUT_TOKENS } from '../limits.js';
import type { Admitted, Ingested, PruneJob } from '../pipeline/types.js';
import { readKindOf } from '../policy/readPolicy.js';
import { detectLanguage } from '../syntax/index.js';
import { ingest } from './ingest.js';

export function ingestInput(job: PruneJob, admitted: Admitted): Ingested {
  const { session } = job;
  const { tokensIn, mode } = admitted;
  const doc = ingest(job.code, { path: job.path, language: job.language, detectLanguage, firstLine: job.firstLine, grepFiles: job.grepFiles });
  // Session memory: lines the session was shown before, unchanged, need not be shown again,
  // unless the agent asked for them.
  const shifts = new Int32Array(doc.lines.length);
  const seen = session && !askedExplicitly(job, admitted, doc) ? session.seenMask(doc, shifts) : undefined;
  if (seen?.some((v) => v === 1)) {
    doc.seen = seen;
    if (shifts.some((v) => v !== 0)) doc.seenShift = shifts;
  }
  return { doc, tokensIn, mode, keepAll: nothingToPrune(job, admitted, doc.lines.length) };
}

/**
 * A read the agent asked for explicitly is served in full, whatever the session was shown: a range
 * it named without a goal hint or budget (a marker's range, `sed -n a,bp`, offset/limit), or the
 * same read made again (asking again says its copy is gone: compacted, cut by the harness).
 * Folding applies to what a wider or a focused read brings along.
 */
function askedExplicitly(job: PruneJob, { mode }: Admitted, doc: Ingested['doc']): boolean {
  if (job.query === '' && mode.kind === 'threshold' && readKindOf(doc, job.window) === 'window') return true;
  return job.readKey !== undefined && job.session?.hasRead(job.readKey) === true;
}

/** Nothing to prune for the question: the input whole, except what session memory collapses. */
function nothingToPrune(job: PruneJob, { tokensIn, mode }: Admitted, lineCount: number): Ingested['keepAll'] {
  if (mode.kind === 'budget') return mode.measure.exact(job.code) <= mode.budget ? {} : null;
  if (job.query === '') return { why: diagnostic('no-query', 'no query: returned unchanged') };
  const small = lineCount < SMALL_INPUT_LINES || tokensIn < SMALL_INPUT_TOKENS;
  return small && job.keepSmall ? {} : null;
}
