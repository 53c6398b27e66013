/**
 * The first stage: a validated request as the later stages read it (the query and task trimmed
 * and capped, the language normalized, defaults applied, the mode decided), with the problems
 * known before any input is read.
 */
import { diagnostic } from '../diagnostics.js';
import { MAX_QUERY_CHARS } from '../limits.js';
import type { ReadGate } from '../policy/readPolicy.js';
import { readKeyOf } from '../session/memory.js';
import { normalizeLanguage } from '../syntax/index.js';
import type { PruneRequest, Scorer } from '../types.js';
import type { PruneJob, RequestedMode } from './types.js';

/** A query (or task) as prune() reads it: trimmed, at most MAX_QUERY_CHARS characters. */
export function queryAsRead(query: string | null | undefined): string {
  return (query ?? '').trim().slice(0, MAX_QUERY_CHARS);
}

export function readRequest(scorer: Scorer, req: PruneRequest, readPolicy: ReadGate[]): PruneJob {
  const started = performance.now();
  // the scorer's own problems (a corrupt model it stands in for) go on every result
  const diagnostics = [...(scorer.diagnostics ?? [])];
  if ((req.query ?? '').trim().length > MAX_QUERY_CHARS) diagnostics.push(diagnostic('query-truncated', `query truncated to ${MAX_QUERY_CHARS} characters`));
  return {
    scorer,
    readPolicy,
    code: req.code,
    path: req.path,
    firstLine: req.firstLine,
    grepFiles: req.grepFiles,
    window: req.window,
    session: req.session,
    mode: requestedMode(req),
    keepSmall: req.keepSmall ?? true,
    explain: req.explain === true,
    repair: req.repair ?? true,
    pinLines: req.pinLines ?? [],
    query: queryAsRead(req.query),
    task: queryAsRead(req.task),
    language: req.language ? normalizeLanguage(req.language) : undefined,
    started,
    diagnostics,
    ...(req.session ? { readKey: readKeyOf(req) } : {}),
  };
}

/** The mode the request's fields ask for (the schema allows at most one budget; a threshold wins over a relative one). */
function requestedMode(req: PruneRequest): RequestedMode {
  if (req.maxChars !== undefined) return { kind: 'chars', chars: req.maxChars };
  if (req.tokens !== undefined) return { kind: 'tokens', tokens: req.tokens };
  if (req.ratio !== undefined) return { kind: 'ratio', ratio: req.ratio };
  if (req.threshold !== undefined) return { kind: 'threshold', tau: { kind: 'given', tau: req.threshold } };
  if (req.relativeThreshold !== undefined) return { kind: 'threshold', tau: { kind: 'relative', relative: req.relativeThreshold } };
  return { kind: 'threshold', tau: { kind: 'calibrated' } };
}
