/**
 * Render a baseline's keep mask with skim's own render stage (src/core/render), so baselines pay
 * exactly the marker tokens skim pays: one marker line per omitted run, in the language's comment
 * syntax, naming the omitted range. Baselines get no placeholders (that is part of skim's repair).
 * Like skim's selection, a lone omitted line between kept lines is shown rather than marked.
 */
import { joinPieces, layout, type SegmentRenderInfo } from '../core/layout/layout.js';
import { languageInfo } from '../core/syntax/index.js';
import type { Document } from '../core/types.js';

/** Line-comment token of a language (skim's own table), null when it has none (markers are then plain). */
export function lineCommentFor(language: string): string | null {
  return languageInfo(language).lineComment;
}

export interface Rendered {
  text: string;
  /** The mask actually shown: the requested mask plus lone gaps shown instead of marked. */
  shown: Uint8Array;
}

export function renderMask(doc: Document, keep: Uint8Array): Rendered {
  const n = doc.lines.length;
  const shown = Uint8Array.from(keep);
  for (let i = 1; i < n - 1; i++) if (!keep[i] && keep[i - 1] && keep[i + 1]) shown[i] = 1;
  const infos: SegmentRenderInfo[] = doc.segments.map((s) => ({ lineComment: lineCommentFor(s.language), placeholders: new Map() }));
  return { text: joinPieces(layout(doc, shown, infos)), shown };
}

/** A marker as skim renders it, for budget estimates. */
export function markerText(language: string, count: number, from: number, to: number): string {
  const c = lineCommentFor(language);
  return `${c ? c + ' ' : ''}... ${count} lines omitted (${from}-${to})`;
}
