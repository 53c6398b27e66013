/**
 * Gap filling: an omitted run whose lines cost no more tokens than the marker that would replace
 * them is kept instead. The output gets more lines for the same or fewer tokens, and reads
 * without the interruption (design 2.6: "a one-line gap is kept rather than marked" is the
 * smallest case of this rule).
 */
import type { KeepReason } from '../pipeline/types.js';
import type { SyntaxIndex } from '../types.js';

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
 * filled. A segment with nothing kept is left alone (it is one marker by design). One-line runs
 * are always filled; any run, interior or at an edge, is filled when its lines cost no more than
 * its marker; a run holding a `banned` line is not. `sameRun(a, b)`: segment lines a and b
 * may share a marker (session memory splits runs where "seen before" changes: each part is a
 * marker of its own, and is measured so).
 */
export function fillCheapGaps(
  local: Uint8Array,
  reasons: (KeepReason | undefined)[],
  costs: GapCosts,
  banned?: (k: number) => boolean,
  sameRun?: (a: number, b: number) => boolean,
): number {
  const n = local.length;
  if (!local.includes(1)) return 0;
  let filled = 0;
  for (let i = 0; i < n; ) {
    if (local[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < n && !local[j + 1] && (!sameRun || sameRun(i, j + 1))) j++;
    // a marker for one line stands for no more than the line: kept, at an edge too
    if (!(banned && anyBanned(i, j, banned)) && (i === j || fitsUnderMarker(i, j, costs))) {
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

function anyBanned(start: number, end: number, banned: (k: number) => boolean): boolean {
  for (let k = start; k <= end; k++) if (banned(k)) return true;
  return false;
}

function fitsUnderMarker(start: number, end: number, costs: GapCosts): boolean {
  let sum = 0;
  for (let k = start; k <= end; k++) {
    sum += costs.line(k);
    if (sum > MARKER_TOKENS_MAX) return false;
  }
  return sum <= costs.marker(start, end);
}

/** A gap inside a comment or docstring of at most this many lines is kept; a longer one takes the whole comment out. */
export const TEXT_GAP_KEEP_MAX = 6;

/**
 * Where markers may stand, on one segment's mask after repair and gap filling; returns how many
 * lines of code were kept back (blank lines, comments and strings need no repair). In order:
 *  1. A marker never lands inside a comment or a string: an omitted run inside a multi-line
 *     string of code is kept (taking the string out would cut its statement); inside a block
 *     comment or docstring it is kept when short (TEXT_GAP_KEEP_MAX) or when a line of the
 *     comment was kept for its score, else the whole comment is omitted.
 *  2. Blank lines alone between two omitted runs are omitted too: one marker, not two.
 *  3. An omitted run of one non-blank line, or of blank lines alone, is kept: a marker would stand
 *     for no more than itself.
 * `sameRun(a, b)`: segment lines a and b may share a marker (session memory splits runs where
 * "seen before" changes). `banned` lines stay omitted. A segment with nothing kept is left alone.
 * `onlyKeep` (a read kept whole but for what session memory folds, whose other lines are the
 * read's to show): lines are only ever kept, never omitted: a run inside a comment is kept
 * whatever its length, and blank lines between two markers stay.
 */
export function placeMarkers(
  local: Uint8Array,
  reasons: (KeepReason | undefined)[],
  syntax: SyntaxIndex,
  sameRun: (a: number, b: number) => boolean,
  banned?: (k: number) => boolean,
  onlyKeep = false,
): number {
  const n = local.length;
  if (!local.includes(1)) return 0;
  let filled = 0;
  const kind = (k: number) => syntax.lines[k]?.kind;
  const keep = (from: number, to: number) => {
    for (let k = from; k <= to; k++) if (banned?.(k)) return;
    for (let k = from; k <= to; k++) {
      local[k] = 1;
      reasons[k] = 'gap';
      const kd = kind(k);
      if (kd !== 'blank' && kd !== 'comment' && kd !== 'docstring' && !syntax.insideString?.[k]) filled++;
    }
  };
  // 1. markers inside comments and strings
  forEachRun(local, 0, sameRun, (i, j) => {
    if (i === 0 || j === n - 1) return;
    const block = textBlockAround(syntax, i, j);
    if (!block) return;
    const [open, close, code] = block;
    let scored = false;
    for (let k = open; k <= close && !scored; k++) scored = local[k] === 1 && reasons[k] === 'score';
    if (onlyKeep || code || j - i + 1 <= TEXT_GAP_KEEP_MAX || scored) keep(i, j);
    else
      for (let k = open; k <= close; k++) {
        local[k] = 0;
        reasons[k] = undefined;
      }
  });
  // 2. blank lines between two markers
  forEachRun(local, 1, sameRun, (i, j) => {
    if (onlyKeep || i === 0 || j === n - 1 || !sameRun(i - 1, j + 1)) return;
    for (let k = i; k <= j; k++) if (kind(k) !== 'blank' || reasons[k] === 'score') return;
    for (let k = i; k <= j; k++) {
      local[k] = 0;
      reasons[k] = undefined;
    }
  });
  // 3. markers that would stand for one line, or for blank lines alone
  forEachRun(local, 0, sameRun, (i, j) => {
    let nonBlank = 0;
    for (let k = i; k <= j && nonBlank < 2; k++) if (kind(k) !== 'blank') nonBlank++;
    if (nonBlank === 0 || (nonBlank === 1 && i === j)) keep(i, j);
  });
  return filled;
}

/**
 * Budget modes: where a marker would land inside a comment or string, take the comment or string
 * out whole instead, by omitting only (a budget's selection may drop lines, never add them): a
 * block comment or docstring goes with all its lines, kept ones too; a multi-line string of code
 * goes with the statement it is part of (the string alone would cut that statement). One that
 * holds a line the caller pinned is kept whole instead (a pinned line is always kept; the budget
 * measures what that costs). Returns how many lines were dropped; what the dropped lines headed is
 * the caller's to drop (dropOrphans). Work: a few sweeps of the segment, each line of a comment or
 * statement dropped once.
 */
export function omitTextAroundMarkers(
  local: Uint8Array,
  reasons: (KeepReason | undefined)[],
  syntax: SyntaxIndex,
  sameRun: (a: number, b: number) => boolean,
  pinned?: (k: number) => boolean,
): number {
  const n = local.length;
  let dropped = 0;
  // A dropped statement joins the runs around it: a joined run may lie inside another string.
  for (let pass = 0, changed = true; changed && pass < MAX_TEXT_PASSES; pass++) {
    changed = false;
    forEachRun(local, 0, sameRun, (i, j) => {
      if (i === 0 || j === n - 1) return;
      const block = textBlockAround(syntax, i, j);
      if (!block) return;
      let [from, to] = block;
      if (block[2]) {
        // the statement around the string: from its first line to its last (or the string's)
        const open = syntax.lines[from];
        const close = syntax.lines[to];
        if (open) from = Math.min(from, open.stmtStart);
        to = Math.max(to, open?.stmtEnd ?? to, close?.stmtEnd ?? to);
      }
      const first = Math.max(0, from);
      const last = Math.min(n - 1, to);
      if (pinned && local.subarray(first, last + 1).some((v, d) => v === 1 && pinned(first + d))) {
        for (let k = first; k <= last; k++) {
          if (local[k]) continue;
          local[k] = 1;
          reasons[k] = 'gap';
        }
        return;
      }
      for (let k = first; k <= last; k++) {
        if (!local[k]) continue;
        local[k] = 0;
        reasons[k] = undefined;
        dropped++;
        changed = true;
      }
    });
  }
  return dropped;
}

/** Sweeps of omitTextAroundMarkers: a sweep can join runs into one inside an outer string (a template in a template). */
const MAX_TEXT_PASSES = 4;

/** Calls `visit(i, j)` for each maximal run of lines whose mask is `value` (omitted runs split where `sameRun` says). */
function forEachRun(local: Uint8Array, value: 0 | 1, sameRun: (a: number, b: number) => boolean, visit: (i: number, j: number) => void): void {
  const n = local.length;
  const runs: [number, number][] = [];
  for (let i = 0; i < n; ) {
    if (local[i] !== value) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < n && local[j + 1] === value && (value === 1 || sameRun(i, j + 1))) j++;
    runs.push([i, j]);
    i = j + 1;
  }
  for (const [i, j] of runs) visit(i, j);
}

/**
 * The multi-line string, docstring or block comment that lines i..j lie strictly inside, as
 * [first line, last line, is a string of code], or null. Work: the lines of that comment.
 */
function textBlockAround(syntax: SyntaxIndex, i: number, j: number): [number, number, boolean] | null {
  const inside = syntax.insideString;
  if (inside?.[i] && inside[j]) {
    let open = i - 1;
    while (open > 0 && inside[open]) open--;
    let close = j + 1;
    while (close < inside.length - 1 && inside[close]) close++;
    return [open, close, syntax.lines[open]?.kind !== 'docstring'];
  }
  // a block comment: its first line pairs with its last (closers), and no code lies between
  for (let o = i - 1; o >= 0; o--) {
    const ls = syntax.lines[o];
    if (!ls || (ls.kind !== 'comment' && ls.kind !== 'blank')) return null;
    if (ls.kind === 'comment') for (const c of ls.closers) if (c > j) return [o, c, false];
  }
  return null;
}
