/**
 * Names in a budget's markers. The selection is made against the budget with markers that only
 * count the definitions they hide ("3 definitions": names counted during the search took the
 * budget from lines, docs/experiments.md); the markers of the chosen output then get the names
 * instead, most definitions per token first, while the output still fits the budget: names are
 * paid for only with what the lines left over.
 */
import { joinPieces, namedMarkerText, type RenderPiece } from '../layout/layout.js';
import type { Materialized } from '../pipeline/types.js';
import type { Document } from '../types.js';
import type { Budget } from './budget.js';

interface Candidate {
  /** Index of the marker in the pieces. */
  at: number;
  named: string;
  /** What the names add to the estimated cost. */
  extra: number;
  /** Definitions the names tell of (named, "rest of", or counted). */
  told: number;
}

/**
 * `chosen` with as many markers named as the budget allows (the same object when none fits). Work:
 * one rendering per marker, one exact measure of the output, a few more when the estimate was short.
 */
export function nameMarkersWithinBudget(doc: Document, chosen: Materialized, budget: Budget): Materialized {
  const { measure, limit } = budget;
  const candidates: Candidate[] = [];
  chosen.pieces.forEach((p, at) => {
    const named = namedMarkerText(doc, p);
    if (named === null) return;
    const extra = measure.estimate([{ ...p, line: named }]) - measure.estimate([p]);
    candidates.push({ at, named, extra, told: definitionsTold(named) });
  });
  if (candidates.length === 0) return chosen;
  let room = limit - measure.exact(joinPieces(chosen.pieces));
  if (room <= 0) return chosen;
  // most definitions per token of names; ties in document order (same input, same output)
  candidates.sort((a, b) => b.told * a.extra - a.told * b.extra || a.at - b.at);
  const picked: Candidate[] = [];
  for (const c of candidates) {
    if (c.extra > room) continue;
    picked.push(c);
    room -= c.extra;
  }
  // per-line estimates can be short of the joined text's count: the longest fitting prefix of the picks
  for (let k = picked.length; k > 0; k = k > 8 ? Math.floor(k * 0.75) : k - 1) {
    const pieces = withNames(chosen.pieces, picked.slice(0, k));
    if (measure.exact(joinPieces(pieces)) <= limit) return { ...chosen, pieces, cost: measure.estimate(pieces) };
  }
  return chosen;
}

function withNames(pieces: readonly RenderPiece[], picked: readonly Candidate[]): RenderPiece[] {
  const out = pieces.slice();
  for (const c of picked) {
    const p = out[c.at];
    out[c.at] = { ...p, line: c.named, code: p.code === p.line ? c.named : p.code + c.named.slice(p.line.length) };
  }
  return out;
}

/** How many definitions a named marker tells of: each listed name (after its range), plus those counted ("and 3 more"). */
function definitionsTold(named: string): number {
  const said = /\(\d+-\d+\): (.*)$/.exec(named)?.[1] ?? '';
  const more = / and (\d+) more$/.exec(said);
  return said.split(/, |; /).length + (more ? Number(more[1]) : 0);
}
