/**
 * The heuristic scorer: no learned weights. BM25 of query terms against each line, spread over
 * the line's enclosing scopes and neighbours, plus a bonus for identifiers quoted verbatim in the
 * query and a small structural prior. It is the fallback when no model weights are available and
 * an ablation in benchmarks.
 */
import { Bm25, rawTokens, terms } from '../features/lexical.js';
import type { LineScores, ScoreInput, Scorer } from '../types.js';

/** Default threshold for this scorer's probabilities (chosen by eye on dev files; see README). */
export const HEURISTIC_THRESHOLD = 0.3;

export function createHeuristicScorer(): Scorer {
  return { name: 'heuristic', score: scoreHeuristic };
}

export function scoreHeuristic(input: ScoreInput): LineScores {
  const { lines, syntax, query } = input;
  const n = lines.length;
  const keep = new Float64Array(n);
  const qTerms = [...new Set(terms(query))];
  if (n === 0 || qTerms.length === 0) return { keep, docScore: 0 };

  const lineTerms = lines.map((l) => terms(l));
  const bm25 = new Bm25(lineTerms);
  const lexical = bm25.scoreAll(qTerms);

  // Identifiers the query names verbatim (e.g. `get_records` in an issue) are strong evidence.
  const quoted = new Set(rawTokens(query).filter((t) => t.length > 3 && /[_A-Z0-9]/.test(t.slice(1))));
  if (quoted.size > 0) {
    for (let i = 0; i < n; i++) {
      let hits = 0;
      for (const t of rawTokens(lines[i])) if (quoted.has(t)) hits++;
      if (hits) lexical[i] += 2 * Math.min(hits, 3);
    }
  }

  // Spread over scopes: a scope is as relevant as the mean of its best lines.
  const scopeScore = new Float64Array(syntax.scopes.length);
  syntax.scopes.forEach((s, k) => {
    let best = 0;
    let sum = 0;
    const end = Math.min(s.end, n - 1);
    for (let i = s.start; i <= end; i++) {
      best = Math.max(best, lexical[i]);
      sum += lexical[i];
    }
    const len = Math.max(1, end - s.start + 1);
    scopeScore[k] = 0.5 * best + (0.5 * sum) / Math.sqrt(len);
  });

  const raw = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let window = 0;
    for (let j = Math.max(0, i - 2); j <= Math.min(n - 1, i + 2); j++) if (j !== i) window = Math.max(window, lexical[j]);
    let scope = 0;
    const ls = syntax.lines[i];
    if (ls) for (const k of ls.scopes) scope = Math.max(scope, scopeScore[k] ?? 0);
    raw[i] = lexical[i] + 0.35 * window + 0.45 * scope;
    if (ls?.kind === 'header') raw[i] *= 1.15;
    if (ls?.kind === 'blank') raw[i] *= 0.5;
  }

  let max = 0;
  for (const v of raw) max = Math.max(max, v);
  // Document relevance: how much of the query's IDF mass the file covers at all.
  let covered = 0;
  let total = 0;
  const present = new Set<string>();
  for (const t of lineTerms) for (const x of t) present.add(x);
  for (const q of qTerms) {
    const w = Math.log(1 + n / (1 + (bm25.df.get(q) ?? 0)));
    total += w;
    if (present.has(q)) covered += w;
  }
  const docScore = total > 0 ? covered / total : 0;
  if (max <= 0) return { keep, docScore };
  for (let i = 0; i < n; i++) keep[i] = Math.min(1, (raw[i] / max) * (0.4 + 0.6 * docScore));
  return { keep, docScore };
}
