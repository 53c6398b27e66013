/**
 * Turn LabeledFiles into training examples: syntax index (cached per file content), rubric labels,
 * the learned bridge (fitted on the train split; cross-fitted in two folds so a training example's
 * own labels never feed its bridge features), and cached feature matrices (Float32).
 */
import { type BridgeSample, type BridgeTable, fitBridge } from '../core/features/bridge.js';
import { NUM_FEATURES } from '../core/features/columns.js';
import { contextFeatures, withContext } from '../core/features/contextFeatures.js';
import { terms } from '../core/features/lexical.js';
import { lineFeatures } from '../core/features/lineFeatures.js';
import { analyzeQuery } from '../core/features/queryAnalysis.js';
import type { LamrModel } from '../core/model/lamr.js';
import type { SyntaxIndex } from '../core/types.js';
import { hash32, type LabeledFile } from './datasets.js';
import type { Labels } from './lamrLoss.js';
import { accumulateRubricStats, emptyRubricStats, type RubricStats, rubricLabels } from './rubricLabels.js';
import type { SyntaxSource } from './syntaxSource.js';

export interface Example {
  file: LabeledFile;
  /** The file's syntax index (the context stage needs its scopes). */
  syntax: SyntaxIndex;
  n: number;
  X: Float32Array;
  labels: Labels;
  weight: number;
}

export interface PreparedFile {
  file: LabeledFile;
  syntax: SyntaxIndex;
  labels: Labels;
  fold: number;
}

const fileKey = (f: LabeledFile): string => `${f.repo}:${f.path}:${f.lines.length}:${hash32(f.lines.join('\n'))}`;

/** Syntax + rubric labels for every file (syntax cached by content), with rubric statistics per source. */
export async function prepareFiles(
  files: LabeledFile[],
  syntax: SyntaxSource,
  onProgress?: (done: number) => void,
): Promise<{ prepared: PreparedFile[]; stats: Record<string, RubricStats> }> {
  const cache = new Map<string, SyntaxIndex>();
  const stats: Record<string, RubricStats> = {};
  const prepared: PreparedFile[] = [];
  let k = 0;
  for (const f of files) {
    const key = fileKey(f);
    let syn = cache.get(key);
    if (!syn) {
      await syntax.prepare(f.lang);
      syn = syntax.build(f.lines, f.lang);
      cache.set(key, syn);
    }
    const { labels, closure } = rubricLabels(syn, f.lines.length, f.agg, f.support);
    if (f.role === 'gold') {
      const st = (stats[`${f.source}/${f.split}`] ??= emptyRubricStats());
      accumulateRubricStats(st, labels, closure, f.support);
    }
    prepared.push({
      file: f,
      syntax: syn,
      labels: { ...labels, doc: f.role === 'gold' ? 1 : 0 },
      fold: foldOf(f),
    });
    if (++k % 50 === 0) onProgress?.(k);
  }
  onProgress?.(k);
  return { prepared, stats };
}

function bridgeSample(f: LabeledFile, termCache: Map<string, string[][]>): BridgeSample | null {
  if (f.role !== 'gold' || f.agg.length === 0) return null;
  const key = fileKey(f);
  let lt = termCache.get(key);
  if (!lt) {
    lt = f.lines.map((l) => terms(l));
    if (f.source !== 'commit') termCache.set(key, lt); // teacher files repeat (4 queries each); commit windows rarely do
  }
  const file = new Set<string>();
  for (const t of lt) for (const x of t) file.add(x);
  const gold = new Set<string>();
  for (const i of f.agg) for (const x of lt[i] ?? []) gold.add(x);
  const query = [...new Set(terms(f.query))];
  // teacher queries were written for exactly these lines: trust them more than commit messages
  return { query, file: [...file], gold: [...gold], weight: f.source === 'teacher' ? 3 : 1 };
}

export interface Bridges {
  full: BridgeTable;
  folds: [BridgeTable, BridgeTable];
  samples: number;
}

const foldOf = (f: LabeledFile): number => hash32(`${f.repo}:${f.path}`) % 2;

/** Fit the bridge on the train split of the prepared files plus bridge-only files (more commits than the model trains on). */
export function fitBridges(prepared: PreparedFile[], bridgeOnly: LabeledFile[] = []): Bridges {
  const termCache = new Map<string, string[][]>();
  const byFold: BridgeSample[][] = [[], []];
  for (const f of [...prepared.map((p) => p.file), ...bridgeOnly]) {
    if (f.split !== 'train') continue;
    const s = bridgeSample(f, termCache);
    if (s) byFold[foldOf(f)].push(s);
  }
  const all = [...byFold[0], ...byFold[1]];
  return {
    full: fitBridge(all),
    // features of fold k are computed with the table fitted on the other fold
    folds: [fitBridge(byFold[1]), fitBridge(byFold[0])],
    samples: all.length,
  };
}

export interface WeightPolicy {
  teacher: number;
  /** Extra multiplier for issue-report queries (the SWE-bench-like ones, rarest in the data). */
  issue: number;
  commit: number;
  /** Multiplier for distractor files (all-negative lines, document label 0). */
  distractor: number;
}

export const DEFAULT_WEIGHTS: WeightPolicy = { teacher: 6, issue: 1.5, commit: 1, distractor: 0.5 };

export function buildExamples(prepared: PreparedFile[], bridges: Bridges, policy: WeightPolicy, onProgress?: (done: number) => void): Example[] {
  const out: Example[] = [];
  let k = 0;
  for (const p of prepared) {
    const f = p.file;
    const bridge = f.split === 'train' ? bridges.folds[p.fold] : bridges.full;
    const qi = analyzeQuery(f.query, bridge);
    const X64 = lineFeatures({ query: f.query, lines: f.lines, syntax: p.syntax, language: f.lang, path: f.path }, { bridge }, qi);
    let w = f.source === 'commit' ? policy.commit : policy.teacher;
    if (f.role === 'distractor') w *= policy.distractor;
    if (f.queryKind === 'issue') w *= policy.issue;
    out.push({ file: f, syntax: p.syntax, n: f.lines.length, X: Float32Array.from(X64), labels: p.labels, weight: w });
    if (++k % 100 === 0) onProgress?.(k);
  }
  onProgress?.(k);
  return out;
}

/**
 * Examples for the context stage: each example's line features with the context features of the
 * first stage's marginals appended (features/contextFeatures.ts).
 */
export function contextExamples(stage1: LamrModel, examples: Example[]): Example[] {
  return examples.map((e) => {
    const r = stage1.infer(e.X, e.n, false, false);
    return { ...e, X: Float32Array.from(withContext(e.X, NUM_FEATURES, contextFeatures(r.keep, r.docScore, e.syntax, e.n), e.n)) };
  });
}

export { NUM_FEATURES };
