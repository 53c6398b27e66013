/**
 * An agent's read through skim, as `skim cat`, `skim grep` and the MCP tools make it: the one
 * place that decides whether a read is pruned at all, and that keeps the read when pruning fails.
 */
import type { Diagnostic } from '../core/diagnostics.js';
import { SkimError } from '../core/errors.js';
import { countLines } from '../core/ingest/ingest.js';
import { SMALL_INPUT_LINES } from '../core/limits.js';
import type { PruneRequest, PruneResult } from '../core/types.js';

export type PruneFn = (req: PruneRequest) => Promise<PruneResult>;

/** What decides whether a read is pruned: its question, its budget, its session memory. */
export type ReadAsk = Pick<PruneRequest, 'query' | 'ratio' | 'tokens' | 'maxChars' | 'session' | 'keepSmall'>;

/** The read names a question (not blank) or a budget: the agent asked for it pruned. */
export function asksToPrune(r: ReadAsk): boolean {
  return (r.query ?? '').trim() !== '' || r.ratio !== undefined || r.tokens !== undefined || r.maxChars !== undefined;
}

/**
 * The read goes through prune(): the agent asked for it pruned, or session memory folds what it
 * was shown before (`remembers`: the prune function brings the session itself). A small output
 * asked for by question alone comes back as it is (prune() would return it whole too, unless
 * `keepSmall` is false; this saves loading the model).
 */
export function prunesRead(r: ReadAsk, text: string, remembers = false): boolean {
  if (remembers || r.session !== undefined || r.ratio !== undefined || r.tokens !== undefined || r.maxChars !== undefined) return true;
  return asksToPrune(r) && (r.keepSmall === false || countLines(text, SMALL_INPUT_LINES) >= SMALL_INPUT_LINES);
}

export interface AgentRead {
  /** The text the agent gets (the input itself when it was not pruned). */
  text: string;
  /** prune()'s result, null when the read was not pruned. */
  result: PruneResult | null;
}

export interface ReadOptions {
  /** Told why, when prune() failed and the read comes back whole. */
  onFailure: (message: string) => void;
  /** The prune function brings session memory of its own (the MCP server's connection). */
  remembers?: boolean;
}

/**
 * The read, pruned when prunesRead says so. Fail open: when prune() fails on anything but the
 * caller's misuse (a SkimError 'EUSAGE', thrown on), `onFailure` is told why and the read comes
 * back whole.
 */
export async function readForAgent(prune: PruneFn, req: PruneRequest, { onFailure, remembers }: ReadOptions): Promise<AgentRead> {
  if (!prunesRead(req, req.code, remembers)) return { text: req.code, result: null };
  try {
    const result = await prune(req);
    return { text: result.text, result };
  } catch (err) {
    if (err instanceof SkimError && err.code === 'EUSAGE') throw err;
    onFailure(`prune failed, returning the output unpruned: ${err instanceof Error ? err.message : String(err)}`);
    return { text: req.code, result: null };
  }
}

/**
 * What the CLI says on stderr of a read's diagnostics: all but "no query". A read without a goal
 * hint is printed as cat prints it, and saying so in every observation is noise.
 */
export function readWarnings(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.filter((d) => d.code !== 'no-query').map((d) => d.message);
}
