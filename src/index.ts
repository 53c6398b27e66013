/**
 * skim: query-conditioned, syntax-preserving pruning of code-reading tool output.
 *
 *   import { prune } from 'skim-pruner';
 *   const r = await prune({ code, query: 'Where is the proxy chosen for https URLs?', ratio: 4 });
 *   const o = pruneOutput({ text: testLog, command: 'pytest -x', query: 'why does test_clear fail?' });
 */

export { EXIT_CODES, HTTP_STATUS, SkimError, type SkimErrorCode } from './core/errors.js';
export { MARKER_RE, SEEN_VERB } from './core/layout/layout.js';
export { OutputMemory, type OutputMemoryLimits, type OutputMemorySnapshot, type StoredOutput } from './core/output/memory.js';
export { MIN_OUTPUT_LINES, pruneOutput } from './core/output/pruneOutput.js';
export type { FoldReason, LineRole, OutputFold, OutputRequest, OutputResult } from './core/output/types.js';
export { decideRead, READ_POLICY, type ReadFacts, type ReadGate, type ReadKind, readProbability } from './core/policy/readPolicy.js';
export { createPruner, type Pruner, type PrunerOptions, prune, pruneWith } from './core/prune.js';
export { pruneRequestSchema, type WireRequest, wireRequestSchema } from './core/request.js';
export { createHeuristicScorer } from './core/score/heuristic.js';
export { type SessionLimits, SessionMemory, type SessionSnapshot } from './core/session/memory.js';
export { type CoreSettings, configureCore, coreSettings } from './core/settings.js';
export { countTokens } from './core/tokens/count.js';
export type * from './core/types.js';
export { VERSION } from './version.js';
