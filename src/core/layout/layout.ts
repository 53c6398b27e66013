/**
 * Render (design 2.6): assemble the output from the keep mask. Kept lines are emitted
 * byte-identical (prefix, text and terminator); every omitted run becomes exactly one marker line
 * naming its range, in the language's comment syntax and indented like the code it replaces;
 * where an omitted run would leave a block empty, the marker carries a placeholder statement
 * (Python `...`) so the output still parses.
 */

import { countLineTokens } from '../tokens/count.js';
import type { Document, FileRanges, InputLine } from '../types.js';

/** What render needs to know about each segment. */
export interface SegmentRenderInfo {
  /** Line-comment prefix for markers ("#", "//"), or null when the language has none. */
  lineComment: string | null;
  /** Segment-local line index -> placeholder statement (with indentation) to put in the run that starts there. */
  placeholders: Map<number, string>;
}

export interface RenderPiece {
  /** The line without its terminator. */
  line: string;
  eol: string;
  /** Input index for kept lines; -1 for markers. */
  source: number;
  /** Segment of the line or run (-1 for layout lines). */
  segment: number;
  /** The code column only (no numbered/grep prefix): what a parser of the segment sees. */
  code: string;
  /** For markers: the omitted run (input indexes, inclusive). */
  run?: OmittedRun;
}

export interface OmittedRun {
  /** Input indexes, inclusive. */
  start: number;
  end: number;
}

/**
 * The runs of omitted input lines, split where the segment changes and where session memory's
 * "seen before" changes (the agent has one kind of run in its context and not the other).
 */
export function omittedRuns(doc: Document, mask: Uint8Array): OmittedRun[] {
  const runs: OmittedRun[] = [];
  let i = 0;
  const n = doc.lines.length;
  const seen = doc.seen;
  while (i < n) {
    if (mask[i]) {
      i++;
      continue;
    }
    const seg = doc.lines[i].segment;
    let j = i;
    const shift = doc.seenShift;
    while (j + 1 < n && !mask[j + 1] && doc.lines[j + 1].segment === seg && (!seen || seen[j + 1] === seen[i]) && (!shift || shift[j + 1] === shift[i])) j++;
    runs.push({ start: i, end: j });
    i = j + 1;
  }
  return runs;
}

const INDENT_RE = /^[ \t]*/;

function runIndent(doc: Document, run: OmittedRun): string {
  for (let i = run.start; i <= run.end; i++) {
    const t = doc.lines[i].text;
    if (t.trim() !== '') return INDENT_RE.exec(t)![0];
  }
  return '';
}

/** First and last known file line numbers in a run (numbered input can have unnumbered blank lines). */
function runLineNumbers(doc: Document, run: OmittedRun): [number, number] {
  let first: number | null = null;
  let last: number | null = null;
  for (let i = run.start; i <= run.end; i++) {
    const no = doc.lines[i].lineNo;
    if (no === null) continue;
    if (first === null) first = no;
    last = no;
  }
  if (first === null || last === null) return [run.start + 1, run.end + 1];
  return [first, last];
}

export function markerText(doc: Document, run: OmittedRun, info: SegmentRenderInfo | undefined, placeholder: string | undefined): string {
  const count = run.end - run.start + 1;
  const [a, b] = runLineNumbers(doc, run);
  const first: InputLine = doc.lines[run.start];
  const seg = doc.segments[first.segment];
  const noun = count === 1 ? 'line' : 'lines';
  // A run the agent was shown earlier in the session says so (and where, if it moved since); any
  // other run was never shown.
  const shift = doc.seenShift?.[run.start] ?? 0;
  const verb = doc.seen?.[run.start] ? (shift !== 0 ? `${SEEN_VERB}, then at ${a + shift}-${b + shift}` : SEEN_VERB) : 'omitted';
  if (doc.shape === 'grep') {
    const where = seg?.path ? `${seg.path}:${a}-${b}` : `${a}-${b}`;
    let matches = 0;
    for (let i = run.start; i <= run.end; i++) if (doc.lines[i].isMatch) matches++;
    const what = matches > 0 ? `, ${matches} ${matches === 1 ? 'match' : 'matches'}` : '';
    return `... ${count} ${noun} ${verb}${what} (${where})`;
  }
  const range = `(${a}-${b})`;
  const comment = info?.lineComment ?? null;
  let body: string;
  if (placeholder !== undefined) {
    body = comment ? `${placeholder}  ${comment} ${count} ${noun} ${verb} ${range}` : `${placeholder}`;
  } else {
    const indent = runIndent(doc, run);
    body = comment ? `${indent}${comment} ... ${count} ${noun} ${verb} ${range}` : `${indent}... ${count} ${noun} ${verb} ${range}`;
  }
  if (doc.shape === 'numbered') {
    // Keep the code column aligned: blank number field of the same width, then the tab.
    const m = /^(\s*\d+)(\t|→)/.exec(first.prefix);
    const width = m ? m[1].length : 6;
    return `${' '.repeat(width)}${m ? m[2] : '\t'}${body}`;
  }
  return body;
}

/** Lay out the output as pieces (kept lines and markers) without joining them. */
export function layout(doc: Document, mask: Uint8Array, infos: SegmentRenderInfo[]): RenderPiece[] {
  const pieces: RenderPiece[] = [];
  const runs = omittedRuns(doc, mask);
  const segmentPos = segmentPositions(doc);
  let r = 0;
  const n = doc.lines.length;
  for (let i = 0; i < n; ) {
    if (mask[i]) {
      const l = doc.lines[i];
      pieces.push({ line: l.prefix + l.text, eol: l.eol, source: i, segment: l.segment, code: l.text });
      i++;
      continue;
    }
    const run = runs[r++];
    const segId = doc.lines[run.start].segment;
    const info = infos[segId];
    let placeholder: string | undefined;
    if (info && info.placeholders.size > 0) {
      for (let k = run.start; k <= run.end && placeholder === undefined; k++) {
        placeholder = info.placeholders.get(segmentPos[k]);
      }
    }
    // The marker takes the terminator of the run's last line (so a missing final newline stays missing).
    const line = markerText(doc, run, info, placeholder);
    const code = doc.shape === 'numbered' ? line.replace(/^\s*(\t|→)/, '') : line;
    pieces.push({ line, eol: doc.lines[run.end].eol === '' ? '' : doc.eol, source: -1, segment: segId, code, run });
    i = run.end + 1;
  }
  return pieces;
}

const segmentPositionCache = new WeakMap<Document, Int32Array>();

/** Input index -> position inside its segment (-1 for layout lines). */
export function segmentPositions(doc: Document): Int32Array {
  let pos = segmentPositionCache.get(doc);
  if (!pos) {
    pos = new Int32Array(doc.lines.length).fill(-1);
    for (const seg of doc.segments) seg.lines.forEach((idx, k) => (pos![idx] = k));
    segmentPositionCache.set(doc, pos);
  }
  return pos;
}

export function joinPieces(pieces: RenderPiece[]): string {
  let out = '';
  for (const p of pieces) out += p.line + p.eol;
  return out;
}

/** Upper-bound token estimate of the laid-out output (per-line counts, cached). */
export function estimateTokens(pieces: RenderPiece[]): number {
  let t = 0;
  for (const p of pieces) t += countLineTokens(p.line);
  return t;
}

/**
 * Per file (segment) of a numbered/grep/multi-file input: kept and omitted ranges in the file's own
 * line numbers (what the markers name), a range ending where the numbers stop being consecutive.
 */
export function fileRanges(doc: Document, mask: Uint8Array): FileRanges[] {
  return doc.segments.map((seg) => {
    const out: FileRanges = { ...(seg.path !== undefined ? { path: seg.path } : {}), kept: [], omitted: [] };
    let run: { keep: boolean; start: number; end: number } | null = null;
    const flush = () => {
      if (run) (run.keep ? out.kept : out.omitted).push([run.start, run.end]);
    };
    for (const i of seg.lines) {
      const no = doc.lines[i].lineNo;
      if (no === null) continue;
      const keep = mask[i] === 1;
      if (run && run.keep === keep && no === run.end + 1) run.end = no;
      else {
        flush();
        run = { keep, start: no, end: no };
      }
    }
    flush();
    return out;
  });
}

/** Inclusive 1-based ranges of the input positions where mask === value. */
export function maskRanges(mask: Uint8Array, value: 0 | 1): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  while (i < mask.length) {
    if ((mask[i] ? 1 : 0) !== value) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < mask.length && (mask[j + 1] ? 1 : 0) === value) j++;
    out.push([i + 1, j + 1]);
    i = j + 1;
  }
  return out;
}

/**
 * What a marker says of lines the session was shown before, unchanged (instead of "omitted");
 * followed by ", then at a-b" when they were shown at other line numbers.
 */
export const SEEN_VERB = 'unchanged since an earlier read';

/**
 * Matches every marker skim emits; used by tests and by consumers that re-read omitted ranges.
 * Group 1 the line count, 2 the path (grep), 3-4 the range; a seen run's marker contains SEEN_VERB.
 */
export const MARKER_RE = new RegExp(
  String.raw`\b(\d+) lines? (?:omitted|${SEEN_VERB}(?:, then at \d+-\d+)?)(?:, \d+ match(?:es)?)? \((?:(.*):)?(\d+)-(\d+)\)\s*$`,
);
