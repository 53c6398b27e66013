/**
 * Repair stage: a selection (seed lines) -> the repaired mask -> the laid-out output and its
 * cost. Selection calls it for every candidate (a budget measures repaired output, not seeds),
 * and the syntax fix (./fixSyntax.ts) calls it after each of its changes.
 */

import { layout, markerText, type Placeholder, type SegmentRenderInfo } from '../layout/layout.js';
import type { Measure } from '../layout/measure.js';
import type { KeepReason, Materialize, Materialized } from '../pipeline/types.js';
import type { SegmentAnalysis } from '../syntax/analyse.js';
import { countLineTokens } from '../tokens/count.js';
import type { Document } from '../types.js';
import { fillCheapGaps, type GapCosts, omitTextAroundMarkers, placeMarkers } from './gaps.js';
import { computePlaceholders, keepOneLineBodies } from './placeholders.js';
import { dropOrphans, repairClosure } from './repair.js';

export interface MaterializeOptions {
  /** Run the repair closure (false: the seeds as they are, plus gaps; an ablation, or a fallback). */
  repair: boolean;
  /**
   * Bring back only what readability and syntax need (headers' first and last lines, closers,
   * owners of clauses), not whole signatures, decorators or the definitions of used names.
   */
  economy: boolean;
  /**
   * The selection is a budget's: lines may be dropped, never added, for where markers fall (none
   * inside a comment or string), and markers count the definitions they hide (named later with
   * what the budget leaves). Not for a read kept whole but for what session memory folds: those
   * lines are the read's, and only lines shown before may go.
   */
  budget: boolean;
  measure: Measure;
  /** Per input line, 1 when the caller pinned it: a budget keeps the comment or string around it rather than omit it. */
  pinned?: Uint8Array;
}

/** The materialize function of one document (render infos are shared by its calls). */
export function createMaterialize(doc: Document, analyses: SegmentAnalysis[], opts: MaterializeOptions): Materialize {
  const infos: SegmentRenderInfo[] = [];
  return (seeds, banned) => materializeSelection(doc, analyses, seeds, opts, infos, banned);
}

/** Seeds -> repaired mask -> laid-out output and its cost. `infos` receives each segment's render info. */
export function materializeSelection(
  doc: Document,
  analyses: SegmentAnalysis[],
  seeds: Uint8Array,
  opts: MaterializeOptions,
  infos: SegmentRenderInfo[],
  banned?: Uint8Array,
): Materialized {
  const { economy } = opts;
  // Names cost tokens a budget would rather spend on lines: there the candidates' markers only
  // count the definitions they hide, and the chosen output's get names with what the lines left
  // of the budget (select/markerNames.ts). A read kept whole names nothing: its folds hold lines
  // the agent was shown before.
  const hidden: SegmentRenderInfo['hidden'] = !economy ? 'named' : opts.budget ? 'counted' : undefined;
  const n = doc.lines.length;
  const mask = new Uint8Array(n);
  const reasons: (KeepReason | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    if (doc.lines[i].segment === -1) mask[i] = 1;
    else if (seeds[i]) {
      mask[i] = 1;
      reasons[i] = 'score';
    }
  }
  doc.segments.forEach((seg, s) => {
    const a = analyses[s];
    const local = new Uint8Array(seg.lines.length);
    const localReasons: (KeepReason | undefined)[] = new Array(seg.lines.length);
    // (both in segment-local line indices)
    const isBanned = banned ? (k: number) => banned[seg.lines[k]] === 1 : undefined;
    const sameRun = sameMarker(doc, seg.lines);
    seg.lines.forEach((idx, k) => {
      local[k] = mask[idx];
      localReasons[k] = reasons[idx];
    });
    // Grep fragments are not a program: structural repair over them would pull unrelated lines.
    const repairHere = opts.repair && seg.contiguous;
    // A gap no dearer than its marker is kept rather than marked; what it brings back may need repair too.
    const markerInfo = {
      lineComment: a.info.lineComment,
      placeholders: new Map(),
      ...(repairHere ? { syntax: a.syntax, hidden } : {}),
    };
    const gapCosts: GapCosts = {
      line: (k) => countLineTokens(doc.lines[seg.lines[k]].prefix + doc.lines[seg.lines[k]].text),
      marker: (start, end) => countLineTokens(markerText(doc, { start: seg.lines[start], end: seg.lines[end] }, markerInfo, undefined)),
    };
    if (local.some((v) => v === 1)) {
      if (repairHere) repairClosure(local, a.syntax, a.texts, localReasons, { braces: a.info.braces, dependencies: !economy, fullHeaders: !economy });
      for (let round = 0; round < 3; round++) {
        if (fillCheapGaps(local, localReasons, gapCosts, undefined, sameRun) === 0) break;
        if (repairHere) repairClosure(local, a.syntax, a.texts, localReasons, { dependencies: false, braces: a.info.braces, fullHeaders: !economy });
      }
      // Threshold mode keeps and drops lines for where markers fall; a read kept whole but for
      // session memory's folds only keeps (its other lines are the read's); a budget only drops,
      // below (keeping lines here turned the budget search away from lines it would have kept).
      if (repairHere && !opts.budget) {
        const onlyKeep = economy;
        if (placeMarkers(local, localReasons, a.syntax, sameRun, isBanned, onlyKeep) > 0) {
          repairClosure(local, a.syntax, a.texts, localReasons, { dependencies: false, braces: a.info.braces, fullHeaders: !economy });
          placeMarkers(local, localReasons, a.syntax, sameRun, isBanned, onlyKeep);
        }
      }
    }
    let anyBanned = false;
    seg.lines.forEach((idx, k) => {
      if (banned?.[idx] && local[k]) {
        local[k] = 0;
        anyBanned = true;
      }
    });
    // What a banned line headed goes with it: never a body under the wrong block or clause.
    if (repairHere && anyBanned) dropOrphans(local, a.syntax);
    // Budget modes: no marker inside a comment or string, by omitting what holds it (threshold
    // mode keeps the gap instead: placeMarkers). Dropped headers take their bodies with them.
    const pinned = opts.pinned;
    const isPinned = pinned ? (k: number) => pinned[seg.lines[k]] === 1 : undefined;
    if (repairHere && opts.budget && omitTextAroundMarkers(local, localReasons, a.syntax, sameRun, isPinned) > 0) dropOrphans(local, a.syntax);
    let placeholders: Map<number, Placeholder> = new Map();
    if (repairHere) {
      placeholders = computePlaceholders(local, a.syntax, a.texts, a.info.placeholder);
      if (placeholders.size > 0 && keepOneLineBodies(local, placeholders, a.texts, localReasons, isBanned) > 0) {
        // a body kept whole can leave a blank line alone between kept lines: no marker for that
        // (a budget's markers are settled: it only drops, or keeps a gap no dearer than its
        // marker, which lowers the cost; a read kept whole only keeps)
        if (!opts.budget) placeMarkers(local, localReasons, a.syntax, sameRun, isBanned, economy);
        else fillCheapGaps(local, localReasons, gapCosts, isBanned, sameRun);
        placeholders = computePlaceholders(local, a.syntax, a.texts, a.info.placeholder);
      }
    }
    seg.lines.forEach((idx, k) => {
      mask[idx] = local[k];
      reasons[idx] = localReasons[k];
    });
    infos[s] = { lineComment: a.info.lineComment, placeholders, ...(repairHere ? { syntax: a.syntax, hidden } : {}) };
  });
  const pieces = layout(doc, mask, infos);
  return { mask, reasons, pieces, cost: opts.measure.estimate(pieces) };
}

/** Whether two lines of a segment may share one marker: session memory's "seen before" (and where) is the same for both. */
function sameMarker(doc: Document, lines: number[]): (a: number, b: number) => boolean {
  const { seen, seenShift } = doc;
  if (!seen && !seenShift) return () => true;
  return (a, b) => (!seen || seen[lines[a]] === seen[lines[b]]) && (!seenShift || seenShift[lines[a]] === seenShift[lines[b]]);
}
