/**
 * The syntax fixer, the last step of repair: parse each segment's output; where the grammar finds
 * an error that the input did not have, first bring back the omitted runs next to it (when the
 * budget allows) or drop the kept lines at it; if that does not converge, do the same for the
 * scopes around the error, innermost first (a test file is often one top-level `describe` block:
 * dropping it whole would drop the file); as a last resort the segment collapses to one marker
 * (which always parses) and a diagnostic says so. Bounded rounds, deterministic.
 */
import { type Diagnostic, diagnostic } from '../diagnostics.js';
import { segmentPositions } from '../layout/layout.js';
import { FIX_PARSE_FACTOR, FIX_PARSE_FLOOR } from '../limits.js';
import type { Materialize, Materialized } from '../pipeline/types.js';
import type { SegmentAnalysis } from '../syntax/analyse.js';
import type { Document, SyntaxIndex } from '../types.js';
import { syntaxErrorRows } from './validate.js';

const LOCAL_FIX_ROUNDS = 12;
/** Threshold mode has no budget to protect: more local rounds before coarse fixes (a long file may have many error sites). */
const LOCAL_FIX_ROUNDS_UNBUDGETED = 64;
const COARSE_FIX_ROUNDS = 24;

/**
 * Characters of parsing the fixes of one prune() call may still spend: each parse draws on it, and
 * when it runs out (a large input with many error sites) the fix stops where it is.
 */
export interface FixWork {
  left: number;
}

/** The parsing work one call may spend on an input of `chars` characters (linear in the input). */
export function fixWorkFor(chars: number): FixWork {
  return { left: Math.max(FIX_PARSE_FLOOR, FIX_PARSE_FACTOR * chars) };
}

export interface FixOutcome {
  output: Materialized;
  /**
   * What the fix could not do (stopped early, collapsed a segment): empty when every segment
   * parses, so callers read a non-empty list as "not repaired".
   */
  problems: Diagnostic[];
}

/** `budget` null: no budget (threshold mode); otherwise every change must keep the output within it. */
export function fixSyntax(
  doc: Document,
  analyses: SegmentAnalysis[],
  start: Materialized,
  startSeeds: Uint8Array,
  materialize: Materialize,
  budget: number | null,
  work: FixWork,
): FixOutcome {
  let cur = start;
  const problems: Diagnostic[] = [];
  const seeds = startSeeds.slice();
  const banned = new Uint8Array(doc.lines.length);
  const fits = (m: Materialized) => budget === null || m.cost <= budget;
  doc.segments.forEach((seg, s) => {
    const a = analyses[s];
    if (!a.syntax.hasGrammar || !a.syntax.parseOk || !seg.contiguous) return;
    const local = segmentPositions(doc);
    const widened = new Set<number>();
    const triedScopes = new Set<number>();
    const localRounds = budget === null ? LOCAL_FIX_ROUNDS_UNBUDGETED : LOCAL_FIX_ROUNDS;
    for (let round = 0; ; round++) {
      const rows = cur.pieces.filter((p) => p.segment === s);
      if (!rows.some((p) => p.source < 0)) return; // nothing omitted: the input itself
      if (work.left <= 0) {
        problems.push(diagnostic('repair-stopped', `syntax repair of ${seg.path ?? 'the output'} stopped early (a large input): the output may not parse`));
        return;
      }
      const text = rows.map((p) => p.code).join('\n');
      work.left -= text.length;
      const errors = syntaxErrorRows(text, seg.language, 1);
      if (!errors || errors.length === 0) return;
      const r = Math.min(errors[0], rows.length - 1);
      let next: Materialized | null = null;
      if (round < localRounds) {
        const runs = rows
          .slice(Math.max(0, r - 2), r + 2)
          .filter((p) => p.run && !widened.has(p.run.start))
          .map((p) => p.run!);
        if (runs.length > 0) {
          const trial = seeds.slice();
          for (const run of runs) for (let i = run.start; i <= run.end; i++) if (!banned[i]) trial[i] = 1;
          const m = materialize(trial, banned);
          if (fits(m)) {
            for (const run of runs) widened.add(run.start);
            seeds.set(trial);
            next = m;
          }
        }
        if (!next) {
          for (const p of rows.slice(Math.max(0, r - 1), r + 2)) if (p.source >= 0) ban(p.source);
          next = materialize(seeds, banned);
        }
      } else if (round < localRounds + COARSE_FIX_ROUNDS) {
        // The innermost scope around the error not tried yet: all of it back if allowed, else none of it.
        const at = rows[r].source >= 0 ? rows[r].source : rows[r].run!.start;
        const [from, to] = enclosingItem(a.syntax, local[at], triedScopes);
        const trial = seeds.slice();
        for (let k = from; k <= to; k++) if (!banned[seg.lines[k]]) trial[seg.lines[k]] = 1;
        const m = materialize(trial, banned);
        if (fits(m)) {
          seeds.set(trial);
          next = m;
        } else {
          for (let k = from; k <= to; k++) ban(seg.lines[k]);
          next = materialize(seeds, banned);
        }
      } else {
        for (const idx of seg.lines) ban(idx);
        cur = materialize(seeds, banned);
        const within = budget === null ? '' : ' within the budget';
        problems.push(diagnostic('repair-collapsed', `syntax repair could not make ${seg.path ?? 'the output'} parse${within}: collapsed to a marker`));
        return;
      }
      cur = next;
    }
  });
  return { output: cur, problems };

  function ban(idx: number) {
    banned[idx] = 1;
    seeds[idx] = 0;
  }
}

/**
 * Segment-local [start, end] of the innermost scope containing `line` that is not in `tried`
 * (which it joins), or of the line's statement when every enclosing scope has been tried.
 */
export function enclosingItem(syntax: SyntaxIndex, line: number, tried: Set<number>): [number, number] {
  const ls = syntax.lines[line];
  if (!ls) return [line, line];
  for (let j = ls.scopes.length - 1; j >= 0; j--) {
    const k = ls.scopes[j];
    if (tried.has(k)) continue;
    tried.add(k);
    const sc = syntax.scopes[k];
    return [Math.min(sc.start, ...sc.decorators), sc.end];
  }
  return [Math.min(ls.stmtStart, line), Math.max(ls.stmtEnd, line)];
}
