/**
 * skim: query-conditioned, syntax-preserving pruning of code-reading tool output.
 *
 *   import { prune } from 'skim-pruner';
 *   const r = await prune({ code, query: 'Where is the proxy chosen for https URLs?', ratio: 4 });
 */
export { prune, createPruner, pruneWith, type Pruner, type PrunerOptions } from './core/prune.js';
export { SkimError, EXIT_CODES, HTTP_STATUS, type SkimErrorCode } from './core/errors.js';
export { pruneRequestSchema, wireRequestSchema, type WireRequest } from './core/request.js';
export { countTokens } from './core/tokens/count.js';
export { MARKER_RE, SEEN_VERB } from './core/render/render.js';
export { SessionMemory, type SessionSnapshot, type SessionLimits } from './core/session/memory.js';
export { READ_POLICY, decideRead, readProbability, type ReadGate, type ReadFacts, type ReadKind } from './core/policy/readPolicy.js';
export { createHeuristicScorer } from './core/score/heuristic.js';
export type * from './core/types.js';
export { VERSION } from './version.js';
