/**
 * Gap filling: an omitted run whose lines cost no more tokens than the marker that would replace
 * them is kept instead. The output gets more lines for the same or fewer tokens, and reads
 * without the interruption (design 2.6: "a one-line gap is kept rather than marked" is the
 * smallest case of this rule).
 */
import type { KeepReason } from '../pipeline/types.js';

export interface GapCosts {
  /** Tokens of segment line `k` as it would be rendered (prefix, text, terminator). */
  line(k: number): number;
  /** Tokens of the marker that would stand for segment lines `start..end` (inclusive). */
  marker(start: number, end: number): number;
}

/** No marker costs more than this many tokens: runs dearer than this are never measured against one. */
const MARKER_TOKENS_MAX = 32;

/**
 * Fill omitted runs of one segment's mask in place (reason `gap`) and return how many lines were
 * filled. A segment with nothing kept is left alone (it is one marker by design). Interior one-line
 * runs are always filled; any run, interior or at an edge, is filled when its lines cost no more
 * than its marker.
 */
export function fillCheapGaps(local: Uint8Array, reasons: (KeepReason | undefined)[], costs: GapCosts): number {
  const n = local.length;
  if (!local.includes(1)) return 0;
  let filled = 0;
  for (let i = 0; i < n; ) {
    if (local[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < n && !local[j + 1]) j++;
    const interior = i > 0 && j < n - 1;
    if ((interior && i === j) || fitsUnderMarker(i, j, costs)) {
      for (let k = i; k <= j; k++) {
        local[k] = 1;
        reasons[k] = 'gap';
      }
      filled += j - i + 1;
    }
    i = j + 1;
  }
  return filled;
}

function fitsUnderMarker(start: number, end: number, costs: GapCosts): boolean {
  let sum = 0;
  for (let k = start; k <= end; k++) {
    sum += costs.line(k);
    if (sum > MARKER_TOKENS_MAX) return false;
  }
  return sum <= costs.marker(start, end);
}
