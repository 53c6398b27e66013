/** Clause groups (if/elif/else, try/except/finally, switch cases) as line pairs; shared by both indexes. */
import { MAX_CLAUSE_GROUP } from '../limits.js';

/**
 * The pairs of one clause group (its rows; the smallest is the owner). Every member pairs with
 * every other; a group larger than MAX_CLAUSE_GROUP (a generated elif chain, a switch of
 * thousands of cases) pairs each member with the owner and its neighbours only: repair's closure
 * (a clause needs the clauses before it) keeps the same lines without the quadratic lists.
 */
export function pairGroup(rows: readonly number[], pair: (row: number, other: number) => void): void {
  if (rows.length < 2) return;
  if (rows.length <= MAX_CLAUSE_GROUP) {
    for (const r of rows) for (const o of rows) if (o !== r) pair(r, o);
    return;
  }
  const sorted = [...rows].sort((a, b) => a - b);
  const owner = sorted[0]!;
  sorted.forEach((r, i) => {
    for (const o of new Set([owner, sorted[i - 1], sorted[i + 1]])) if (o !== undefined && o !== r) pair(r, o);
  });
}
