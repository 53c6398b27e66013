/**
 * The enclosing scopes of every row, for both SyntaxIndex builders (walker.ts, fallbackIndex.ts):
 * a scope encloses its body (the rows after its header) through its end.
 */
import type { Scope } from '../types.js';

/**
 * Per row, the indexes into `scopes` of the scopes enclosing it, outermost first (by start, then
 * the longer one, then the shorter header, then index). Rows with the same enclosing scopes share
 * one array: nothing may mutate it. One sweep over the rows, scopes entering in header order.
 */
export function enclosingScopesByRow(scopes: readonly Scope[], n: number): number[][] {
  const order = scopes.map((_, i) => i);
  order.sort((a, b) => scopes[a]!.headerEnd - scopes[b]!.headerEnd || scopes[b]!.end - scopes[a]!.end || a - b);
  const out: number[][] = new Array(n);
  let active: number[] = [];
  let shared: number[] = [];
  let k = 0;
  for (let row = 0; row < n; row++) {
    let changed = false;
    if (active.some((s) => scopes[s]!.end < row)) {
      active = active.filter((s) => scopes[s]!.end >= row);
      changed = true;
    }
    while (k < order.length && scopes[order[k]!]!.headerEnd + 1 <= row) {
      const s = order[k++]!;
      if (scopes[s]!.end >= row) {
        active.push(s);
        changed = true;
      }
    }
    if (changed) {
      if (active.length > 1)
        active.sort((a, b) => scopes[a]!.start - scopes[b]!.start || scopes[b]!.end - scopes[a]!.end || scopes[a]!.headerEnd - scopes[b]!.headerEnd || a - b);
      shared = active.slice();
    }
    out[row] = shared;
  }
  return out;
}
