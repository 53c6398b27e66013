/**
 * Per-line, query-conditioned feature vectors for the learned skimmer (design 2.3).
 * Everything is computed over one segment: lexical match (BM25 over the file's lines, idf-mass
 * coverage), the same for windows and enclosing scopes, the learned query->code bridge, verbatim
 * evidence typical of issue texts (identifiers, code lines, traceback frames), structure from the
 * SyntaxIndex, position and length. Values are squashed to roughly [0, 1] so one small MLP fits all.
 */
import type { ScoreInput } from '../types.js';
import type { BridgeTable } from './bridge.js';
import { NUM_FEATURES, writeBridge, writeLexical, writeNames, writeQueryKind, writeScopes, writeStructure, writeVerbatim } from './columns.js';
import { analyzeQuery, type QueryInfo } from './queryAnalysis.js';
import { enclosingScopes, nameStats, scopeStats, strongLines } from './scopeStatistics.js';
import { lineTerms, matchLines, queryTerms } from './termStatistics.js';

export interface FeatureContext {
  bridge: BridgeTable;
}

/**
 * Features of every line of a segment: a row-major n x NUM_FEATURES matrix.
 * `qi` may be passed in when several segments share a query.
 */
export function lineFeatures(input: ScoreInput, ctx: FeatureContext, qi?: QueryInfo): Float64Array {
  const X = new Float64Array(input.lines.length * NUM_FEATURES);
  writeLineFeatures(X, input, ctx, qi);
  return X;
}

/**
 * Write the feature matrix of `lineFeatures` into `X` (n x NUM_FEATURES, row-major). Each feature
 * group is one function writing its own columns by name.
 */
export function writeLineFeatures(X: Float64Array, input: ScoreInput, ctx: FeatureContext, qi?: QueryInfo): void {
  const q = qi ?? analyzeQuery(input.query, ctx.bridge);
  const { lines, syntax: syn } = input;
  const n = lines.length;
  if (n === 0) return;
  const lt = lineTerms(lines);
  const qt = queryTerms(q, lt, n);
  const lm = matchLines(lt, qt, q, ctx.bridge, n);
  const ss = scopeStats(syn.scopes, lm, qt, q, n);
  const enc = enclosingScopes(syn, ss.defAt, n);
  writeLexical(X, lm, n);
  writeScopes(X, syn, ss, enc, n);
  writeNames(X, syn, nameStats(syn.scopes, q), ss.defAt, enc, n);
  writeVerbatim(X, lines, syn, lt.raw, q);
  writeBridge(X, lm, ss, enc, n);
  writeStructure(X, lines, syn, enc, strongLines(syn, lm.bm25, n));
  writeQueryKind(X, q, input.path, n);
}
