/**
 * Invariants every prune() result must satisfy, checked by the golden and property tests:
 * kept lines are input lines in order and byte-identical, each omitted run is one marker naming
 * its range, kept ∪ omitted partition the input.
 */
import { splitLines } from '../../src/core/ingest/ingest.js';
import { MARKER_RE } from '../../src/core/layout/layout.js';
import type { PruneResult } from '../../src/core/types.js';

export function checkInvariants(input: string, r: PruneResult): string | null {
  const inLines = splitLines(input).lines.map((l) => l.text);
  const n = inLines.length;
  // (b) partition
  const cover = new Uint8Array(n);
  for (const [a, b] of [...r.kept, ...r.omitted]) {
    if (a < 1 || b > n || a > b) return `range out of bounds: ${a}-${b} (n=${n})`;
    for (let i = a; i <= b; i++) {
      if (cover[i - 1]) return `line ${i} covered twice`;
      cover[i - 1] = 1;
    }
  }
  if (cover.some((c) => c === 0)) return 'kept ∪ omitted does not cover the input';
  // (a) output lines are input lines in order, or markers; markers match omitted runs
  const outLines = splitLines(r.text).lines.map((l) => l.text);
  const omitted = [...r.omitted].sort((x, y) => x[0] - y[0]);
  let p = 0; // next input line
  let o = 0; // next omitted run
  for (const line of outLines) {
    if (o < omitted.length && p === omitted[o][0] - 1) {
      if (!MARKER_RE.test(line)) return `expected a marker for lines ${omitted[o][0]}-${omitted[o][1]}, got ${JSON.stringify(line)}`;
      const m = MARKER_RE.exec(line)!;
      const count = omitted[o][1] - omitted[o][0] + 1;
      if (Number(m[1]) !== count) return `marker says ${m[1]} lines, run has ${count}`;
      p = omitted[o][1];
      o++;
      continue;
    }
    if (p >= n) return `extra output line ${JSON.stringify(line)}`;
    if (line !== inLines[p]) return `output line differs from input line ${p + 1}: ${JSON.stringify(line)} vs ${JSON.stringify(inLines[p])}`;
    p++;
  }
  if (p !== n || o !== omitted.length) return `output ended early at input line ${p + 1}`;
  return null;
}

/** Strip markers' leading prefix-free lines for parsing: the output itself is what must parse. */
export function maskOf(r: PruneResult, n: number): Uint8Array {
  const m = new Uint8Array(n);
  for (const [a, b] of r.kept) for (let i = a; i <= b; i++) m[i - 1] = 1;
  return m;
}
