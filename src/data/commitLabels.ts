/**
 * From hunk headers to line labels of the file before the commit, and the window of at most N
 * lines that a sample keeps when the file is longer.
 */
import type { Hunk } from './gitLog.js';

export interface FileLabels {
  /** 1-based lines of the old file that the commit deleted or rewrote. */
  gold: number[];
  /** 1-based lines right before/after a pure insertion (not already gold). */
  anchors: number[];
}

/** Gold = removed/rewritten old lines; anchors = the two old lines around each pure insertion. */
export function labelsFromHunks(hunks: Hunk[], fileLines: number): FileLabels {
  const gold = new Set<number>();
  const anchors = new Set<number>();
  for (const h of hunks) {
    if (h.oldCount > 0) {
      for (let l = h.oldStart; l < h.oldStart + h.oldCount; l++) if (l >= 1 && l <= fileLines) gold.add(l);
    } else {
      // "-a,0": the new lines were inserted after old line a (a = 0: at the top)
      for (const l of [h.oldStart, h.oldStart + 1]) if (l >= 1 && l <= fileLines) anchors.add(l);
    }
  }
  for (const g of gold) anchors.delete(g);
  const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);
  return { gold: sorted(gold), anchors: sorted(anchors) };
}

/**
 * The first line (1-based) of a window of `size` lines holding the most labelled lines; the
 * densest group is centred in the window, which is clamped to the file.
 */
export function chooseWindow(labelled: number[], fileLines: number, size: number): number {
  if (fileLines <= size || labelled.length === 0) return 1;
  const ls = [...labelled].sort((a, b) => a - b);
  let best = 0;
  let bestLo = 0;
  let bestHi = 0;
  for (let lo = 0, hi = 0; lo < ls.length; lo++) {
    if (hi < lo) hi = lo;
    while (hi + 1 < ls.length && ls[hi + 1] - ls[lo] < size) hi++;
    if (hi - lo + 1 > best) {
      best = hi - lo + 1;
      bestLo = lo;
      bestHi = hi;
    }
  }
  const first = ls[bestLo];
  const last = ls[bestHi];
  const slack = size - (last - first + 1);
  const start = first - Math.floor(slack / 2);
  return Math.max(1, Math.min(start, fileLines - size + 1));
}

/** Labels relative to a window starting at `start` (1-based) of `size` lines; outside lines are dropped. */
export function relativeTo(lines: number[], start: number, size: number): number[] {
  return lines.filter((l) => l >= start && l < start + size).map((l) => l - start + 1);
}
