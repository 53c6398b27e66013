/**
 * Budget selection: rank the lines, then find the longest prefix of the ranking whose repaired,
 * rendered output fits the budget (tokens or characters, markers included). The output is then
 * made to parse within the budget, shrinking the selection when its fix would cost most of it, and
 * its markers name what they hide with what the budget has left (./markerNames.ts).
 * When nothing fits, every file collapses to its marker (./collapseAll.ts).
 */
import type { Diagnostic } from '../diagnostics.js';
import { joinPieces } from '../layout/layout.js';
import type { Measure } from '../layout/measure.js';
import type { Materialized, ScoredLines, Selection } from '../pipeline/types.js';
import type { Repairer } from '../repair/repairer.js';
import type { SegmentAnalysis } from '../syntax/analyse.js';
import { countLineTokens } from '../tokens/count.js';
import type { Document } from '../types.js';
import { collapseAll } from './collapseAll.js';
import { costAwareOrder } from './costOrder.js';
import { nameMarkersWithinBudget } from './markerNames.js';
import { openedPriorities, priorityOrder, selectByBudget } from './select.js';

/**
 * Budget mode ranks a line no higher than the best run of this many non-blank lines around it
 * (chosen on the commit val split and the held-back teacher slice: 2, 3 and 4 tie there).
 */
const PEAK_WIDTH = 2;
/**
 * Budget order: keep probability per marginal cost^COST_GAMMA (./costOrder.ts), a marker costing
 * MARKER_COST. Chosen on validation data only (held-back teacher queries, commits val, a third of
 * the bug-report cases' gold files; scripts/budget-validation.ts): γ 0.75-0.85 with 24-32 tokens
 * lead; below, lines that open new scopes win too often, and γ 1 favours short lines.
 */
const COST_GAMMA = 0.75;
const MARKER_COST = { tokens: 24, characters: 80 };
/** How far past the budget the order weighs cost; beyond, lines follow by value (the search stops well before). */
const ORDER_SPAN = 3;
/** How many times the selection may shrink (x0.7) when its syntax fix would collapse a segment. */
const MAX_SHRINK_ATTEMPTS = 6;
/** When not even the best line fits: how many ranked lines to try one by one instead. */
const FALLBACK_PROBES = 64;
/** How many shorter prefixes are tried when the syntax fix had to drop lines. */
const CLEAN_PREFIX_PROBES = 4;

export interface Budget {
  limit: number;
  measure: Measure;
}

export function selectWithinBudget(
  doc: Document,
  analyses: SegmentAnalysis[],
  scored: ScoredLines,
  budget: Budget,
  repairer: Repairer,
  diagnostics: Diagnostic[],
): Selection {
  const { byCost, byValue } = rankLines(doc, scored, analyses, budget);
  let problems: Diagnostic[] = [];
  let chosen = selectInOrder(doc, byCost, scored, budget, repairer, problems);
  // The cost order prices headers, clause pairs and markers, not all that repair may bring: when
  // it affords no line at all, the value order may (a small, deeply nested file at a tight budget).
  const keepsALine = (m: Materialized | null) => !!m && byValue.some((i) => m.mask[i] === 1);
  if (chosen && !keepsALine(chosen)) {
    const retry: Diagnostic[] = [];
    const byValueChosen = selectInOrder(doc, byValue, scored, budget, repairer, retry);
    if (keepsALine(byValueChosen)) {
      chosen = byValueChosen;
      problems = retry;
    }
  }
  if (!chosen) return { kind: 'selected', chosen: collapseAll(doc, analyses, budget, diagnostics) };
  diagnostics.push(...problems);
  return { kind: 'selected', chosen: nameMarkersWithinBudget(doc, chosen, budget) };
}

/** The longest prefix of `order` that fits, made to parse within the budget; null when nothing fits. */
function selectInOrder(doc: Document, order: number[], scored: ScoredLines, budget: Budget, repairer: Repairer, problems: Diagnostic[]): Materialized | null {
  const found = longestFittingPrefix(doc, order, budget, repairer);
  if (!found) return null;
  if (!repairer.enabled) return found.output;
  const fixed = fixWithinBudget(found.order, found.k, found.output, scored.probs, budget, repairer);
  if (!fixed) return found.output;
  problems.push(...fixed.problems);
  return fixed.output;
}

/**
 * Input lines (not layout, not seen before) in the orders budget mode spends on them. By value: a
 * lone high-scoring line would cost its tokens plus a marker, so it ranks with its better
 * neighbour (not in grep fragments, where each line is a match of its own). By cost (the one
 * used first): value per marginal cost, so a line in a scope already opened, next to a kept line,
 * goes before one that needs headers and a marker.
 */
export function rankLines(doc: Document, scored: ScoredLines, analyses: readonly SegmentAnalysis[], budget: Budget): { byCost: number[]; byValue: number[] } {
  const contiguous = doc.segments.filter((s) => s.contiguous).map((s) => s.lines);
  const ranked = openedPriorities(scored.probs, contiguous, (i) => isBlank(doc, i), PEAK_WIDTH);
  const byValue = priorityOrder(ranked, scored.prior).filter((i) => doc.lines[i].segment !== -1 && !doc.seen?.[i]);
  const tokens = budget.measure.unit === 'tokens';
  const byCost = costAwareOrder(doc, analyses, byValue, ranked, scored.prior, {
    gamma: COST_GAMMA,
    markerCost: tokens ? MARKER_COST.tokens : MARKER_COST.characters,
    // the search never keeps more than fits (with headers and markers counted as the order does)
    orderUpTo: ORDER_SPAN * budget.limit,
    // as the line is rendered (its prefix too) with its terminator
    lineCost: (i) => {
      const { prefix, text } = doc.lines[i];
      return tokens ? countLineTokens(prefix + text) : prefix.length + text.length + 1;
    },
  });
  return { byCost, byValue };
}

function isBlank(doc: Document, i: number): boolean {
  return doc.lines[i].text.trim() === '';
}

/** The first `k` lines of `order` as seeds. */
function prefixSeeds(n: number, order: readonly number[], k: number): Uint8Array {
  const seeds = new Uint8Array(n);
  for (let j = 0; j < k; j++) seeds[order[j]] = 1;
  return seeds;
}

interface FittingPrefix {
  /** The ranking, possibly reordered by the fallback (the lines it picked first). */
  order: number[];
  /** Seeds are the first k lines of `order`. */
  k: number;
  output: Materialized;
}

/** The longest prefix of the ranking whose output fits (exactly, on the joined text), or null when not even no line fits. */
function longestFittingPrefix(doc: Document, ranking: number[], budget: Budget, repairer: Repairer): FittingPrefix | null {
  const n = doc.lines.length;
  const { materialize } = repairer;
  let order = ranking;
  const seedsFor = (k: number) => prefixSeeds(n, order, k);
  let { k, result } = selectByBudget(order.length, budget.limit, (kk) => materialize(seedsFor(kk)));
  if (k === 0 && order.length > 0) {
    // Not even the best line fits with the context it needs (a header chain, an if/else pair).
    // Lower-ranked lines may need less: keep, in rank order, those that still fit, rather than
    // hand back nothing. The seeds are then these lines (in rank order) instead of a prefix.
    const picked: number[] = [];
    const trial = new Uint8Array(n);
    // (blank lines only split the markers around them: never worth a probe)
    for (const i of order.filter((i) => !isBlank(doc, i)).slice(0, FALLBACK_PROBES)) {
      trial[i] = 1;
      const m = materialize(trial);
      if (m.cost <= budget.limit) {
        picked.push(i);
        result = m;
      } else trial[i] = 0;
    }
    if (picked.length > 0) {
      order = [...picked, ...order.filter((i) => !trial[i])];
      k = picked.length;
    }
  }
  // Exact check on the joined text: per-line counts are an upper bound, but verify anyway.
  while (result && budget.measure.exact(joinPieces(result.pieces)) > budget.limit) {
    k = k > 0 ? Math.floor(k * 0.9) : -1;
    result = k >= 0 ? materialize(seedsFor(k)) : null;
  }
  return result ? { order, k, output: result } : null;
}

/**
 * The syntax fix of the chosen prefix, within the budget. When the fix cannot converge within the
 * budget it collapses a segment, or it gets there by dropping the selected lines one error at a
 * time (down to none at all). A smaller selection has fewer trouble spots: try 70% of it, and so
 * on. The first fix that keeps at least half of its selection without a problem wins; otherwise
 * the one that kept the most score mass of what was selected. Null when no fix fits the budget.
 */
function fixWithinBudget(
  order: number[],
  k: number,
  output: Materialized,
  probs: Float64Array,
  budget: Budget,
  repairer: Repairer,
): { output: Materialized; problems: Diagnostic[] } | null {
  const n = output.mask.length;
  const { materialize } = repairer;
  const seedsFor = (kk: number) => prefixSeeds(n, order, kk);
  const fits = (m: Materialized) => budget.measure.exact(joinPieces(m.pieces)) <= budget.limit;
  const massOf = (m: Materialized, kk: number) => {
    let kept = 0;
    let mass = 0;
    for (let j = 0; j < kk; j++) {
      if (m.mask[order[j]] !== 1) continue;
      kept++;
      mass += Math.min(1, probs[order[j]]);
    }
    return { kept, mass };
  };
  let best: { output: Materialized; problems: Diagnostic[]; mass: number } | null = null;
  for (let kk = k, attempt = 0; ; kk = Math.floor(kk * 0.7), attempt++) {
    const start = kk === k ? output : materialize(seedsFor(kk));
    const { output: fixedOutput, problems } = repairer.fix(start, seedsFor(kk), budget.limit);
    let fixed = fixedOutput;
    const last = kk <= 1 || attempt >= MAX_SHRINK_ATTEMPTS;
    if (fits(fixed)) {
      let { kept, mass } = massOf(fixed, kk);
      // The fix dropped lines to make the output parse: a slightly shorter prefix that parses
      // as it is often keeps more (the fix may have cut a header or closer the rest needs).
      if (kk === k && problems.length === 0 && fixed !== start && dropsAny(start.mask, fixed.mask)) {
        const clean = cleanShorterPrefix(k, (k2) => {
          const seeds = seedsFor(k2);
          const m = materialize(seeds);
          const probe = repairer.fix(m, seeds, budget.limit);
          return probe.output === m && probe.problems.length === 0 ? m : null;
        });
        if (clean && massOf(clean.m, k).mass >= mass) {
          fixed = clean.m;
          ({ kept, mass } = massOf(fixed, k));
        }
      }
      if (problems.length === 0 && kept * 2 >= kk) return { output: fixed, problems };
      if (!best || mass > best.mass) best = { output: fixed, problems, mass };
    }
    // (without parsing work left, a smaller selection would go unchecked too)
    if (last || repairer.work.left <= 0) break;
  }
  return best;
}

/** The longest prefix among the next few shorter ones whose output parses without a fix. */
function cleanShorterPrefix(k: number, parsesAsIs: (k: number) => Materialized | null): { k: number; m: Materialized } | null {
  for (let kk = k - 1; kk >= Math.max(1, k - CLEAN_PREFIX_PROBES); kk--) {
    const m = parsesAsIs(kk);
    if (m) return { k: kk, m };
  }
  return null;
}

function dropsAny(before: Uint8Array, after: Uint8Array): boolean {
  for (let i = 0; i < before.length; i++) if (before[i] && !after[i]) return true;
  return false;
}
