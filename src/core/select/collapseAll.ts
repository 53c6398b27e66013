/**
 * Budget mode when nothing fits: every file becomes its marker(s), named like any other marker
 * (file line numbers, grep paths), when those fit; else one marker for the whole input. When not
 * even that fits, the output is still that one marker, over the budget: an empty output would
 * lose the lines silently.
 */
import { type Diagnostic, diagnostic } from '../diagnostics.js';
import type { Materialized, SegmentAnalysis } from '../pipeline/types.js';
import { joinPieces, layout, type RenderPiece, type SegmentRenderInfo } from '../render/render.js';
import type { KeepReason } from '../repair/repair.js';
import type { Document } from '../types.js';
import type { Budget } from './budget.js';

export function collapseAll(doc: Document, analyses: SegmentAnalysis[], budget: Budget, diagnostics: Diagnostic[]): Materialized {
  const { limit, measure } = budget;
  const n = doc.lines.length;
  const mask = new Uint8Array(n);
  const reasons: (KeepReason | undefined)[] = new Array(n);
  // layout lines (grep `--`, `==> a <==` headers) stay, as in any other output
  for (let i = 0; i < n; i++) if (doc.lines[i].segment === -1) mask[i] = 1;
  const infos: SegmentRenderInfo[] = analyses.map((a) => ({ lineComment: a.info.lineComment, placeholders: new Map() }));
  const { unit } = measure;
  const tooSmall = (cost: number) =>
    diagnostic('budget-too-small', `budget of ${limit} ${unit} is too small even for a marker: the output is one marker (${cost} ${unit}), over the budget`);
  const oneMarker = diagnostic('budget-too-small', 'budget too small for any line: whole input collapsed to one marker');
  const perFile = layout(doc, mask, infos);
  const perFileCost = measure.exact(joinPieces(perFile));
  if (perFile.length === 1 || perFileCost <= limit) {
    if (perFileCost > limit) diagnostics.push(tooSmall(perFileCost));
    else
      diagnostics.push(perFile.length === 1 ? oneMarker : diagnostic('budget-too-small', 'budget too small for any line: every file collapsed to its marker'));
    return { mask, reasons, pieces: perFile, cost: measure.estimate(perFile) };
  }
  mask.fill(0);
  // one marker across files is not in any one file's language (nor are grep markers comments)
  const comment = doc.shape === 'grep' || doc.segments.length > 1 ? null : analyses[0]?.info.lineComment;
  const noun = n === 1 ? 'line' : 'lines';
  const line = comment ? `${comment} ... ${n} ${noun} omitted (1-${n})` : `... ${n} ${noun} omitted (1-${n})`;
  const eol = doc.finalNewline ? doc.eol : '';
  const pieces: RenderPiece[] = [{ line, eol, source: -1, segment: -1, code: line, run: { start: 0, end: n - 1 } }];
  const cost = measure.exact(line + eol);
  diagnostics.push(cost <= limit ? oneMarker : tooSmall(cost));
  return { mask, reasons, pieces, cost: measure.estimate(pieces), wholeMarker: true };
}
