/**
 * The document-level relevance head as a reranker: prune each document against the query and
 * order the documents by the result's document score (SWE-Pruner and LaMR score pruning and
 * relevance in one pass, so ranking costs one prune per document). Shared by POST /v1/rank and
 * `skim rank`.
 */
import type { PruneRequest, PruneResult } from '../core/types.js';
import { OverloadedError } from './limits.js';

export interface RankDocument {
  id?: string | number;
  path?: string;
  language?: string;
  code: string;
}

export interface RankedDocument {
  /** Position of the document in the request (0-based). */
  index: number;
  id?: string | number;
  path?: string;
  score: number;
  tokensIn: number;
  tokensOut: number;
  /** The pruned text, when asked for. */
  text?: string;
  /** Set when this document could not be scored (it then ranks last with score 0). */
  error?: string;
}

export interface RankOptions {
  includeText?: boolean;
  ratio?: number;
  threshold?: number;
  /** Documents pruned at once (default 2): bounded so one request cannot flood the server's queue. */
  concurrency?: number;
}

export type PruneFn = (req: PruneRequest) => Promise<PruneResult>;

export async function rankDocuments(prune: PruneFn, query: string, docs: RankDocument[], opts: RankOptions = {}): Promise<RankedDocument[]> {
  const scoreOne = async (doc: RankDocument, index: number): Promise<RankedDocument> => {
    const base = { index, ...(doc.id !== undefined ? { id: doc.id } : {}), ...(doc.path ? { path: doc.path } : {}) };
    try {
      const r = await prune({
        code: doc.code,
        query,
        path: doc.path,
        language: doc.language,
        ratio: opts.ratio,
        threshold: opts.threshold,
        // Small inputs are otherwise returned whole with score 1, which would rank them first.
        keepSmall: false,
      });
      return {
        ...base,
        score: r.score,
        tokensIn: r.tokensIn,
        tokensOut: r.tokensOut,
        ...(opts.includeText ? { text: r.text } : {}),
      };
    } catch (err) {
      // A full server is the caller's problem (503), not this document's.
      if (err instanceof OverloadedError) throw err;
      return { ...base, score: 0, tokensIn: 0, tokensOut: 0, error: err instanceof Error ? err.message : String(err) };
    }
  };
  const scored = new Array<RankedDocument>(docs.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(Math.max(1, opts.concurrency ?? 2), docs.length) }, async () => {
    while (next < docs.length) {
      const i = next++;
      scored[i] = await scoreOne(docs[i], i);
    }
  });
  await Promise.all(lanes);
  // Highest score first; ties keep request order so the ranking is deterministic.
  return scored.sort((a, b) => b.score - a.score || a.index - b.index);
}
