/**
 * Render (design 2.6): assemble the output from the keep mask. Kept lines are emitted
 * byte-identical (prefix, text and terminator); every omitted run becomes exactly one marker line
 * naming its range, in the language's comment syntax, indented like the outermost code it hides,
 * and followed by the definitions it hides (read from the syntax index); where an omitted run
 * would leave a block empty, the marker carries a placeholder statement (Python `...`) so the
 * output still parses, and a run that goes on past that block gets a second marker of its own.
 */

import { countLineTokens } from '../tokens/count.js';
import type { Document, FileRanges, InputLine, SyntaxIndex } from '../types.js';

/** A statement standing in for a block whose body is all omitted. */
export interface Placeholder {
  /** The statement with the body's indentation. */
  text: string;
  /** Segment-local last line of the block: the placeholder's marker hides nothing after it. */
  end: number;
}

/** What render needs to know about each segment. */
export interface SegmentRenderInfo {
  /** Line-comment prefix for markers ("#", "//"), or null when the language has none. */
  lineComment: string | null;
  /** Segment-local line index -> placeholder to put in the run that starts there. */
  placeholders: Map<number, Placeholder>;
  /** The segment's syntax index: markers sit at the depth of what they hide. */
  syntax?: SyntaxIndex;
  /**
   * What markers say of the definitions they hide (from `syntax`): their names, or their count
   * ("3 definitions": the budget modes' cheap form, named later where the budget leaves room).
   * Unset: nothing.
   */
  hidden?: 'named' | 'counted';
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
  /** For markers: what rendered it (`namedMarkerText` renders it again with the names). */
  marker?: { info: SegmentRenderInfo | undefined; placeholder: string | undefined };
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

/** Where a marker sits and what it names. */
interface RunShape {
  /** Indentation of the outermost statement the run hides. */
  indent: string;
  /** The definitions the run hides, as the marker names them ("" for none). */
  names: string;
}

/**
 * The indentation of the outermost code in the run, and the definitions it hides. Without a syntax index: the first non-blank
 * line's indentation, no names.
 */
function runShape(doc: Document, run: OmittedRun, info: SegmentRenderInfo | undefined): RunShape {
  const syntax = info?.syntax;
  const seg = doc.segments[doc.lines[run.start].segment];
  const base = syntax && seg?.contiguous ? seg.lines[0] : -1;
  if (base < 0) {
    for (let i = run.start; i <= run.end; i++) if (doc.lines[i].text.trim() !== '') return { indent: INDENT_RE.exec(doc.lines[i].text)![0], names: '' };
    return { indent: '', names: '' };
  }
  // the first line of the fewest enclosing scopes, or a statement or header after it there that
  // starts further left (the first was a continuation line, or the indentation is uneven: a Ruby
  // `private` section, code a macro or a parse error hid from the parser); a label further left
  // is not the code's depth, nor are comments and strings. Work: one look at each line's syntax.
  let first = -1;
  let at = -1;
  let atWidth = 0;
  let depth = Number.POSITIVE_INFINITY;
  let lastCode = -1;
  const inString = syntax!.insideString;
  for (let i = run.start; i <= run.end; i++) {
    const k = i - base;
    const ls = syntax!.lines[k];
    if (!ls) continue;
    const kind = ls.kind;
    if (kind === 'blank') continue;
    if (first < 0) first = i;
    if (kind === 'comment' || kind === 'docstring' || inString?.[k]) continue;
    const starts = ls.stmtStart === k;
    if (starts) lastCode = k;
    // a header starts a definition or block even where the parse lost its statement (a file with errors)
    const opens = starts || kind === 'header';
    if (ls.depth < depth) {
      depth = ls.depth;
      at = i;
      atWidth = indentWidth(doc.lines[i].text);
    } else if (ls.depth === depth && opens && atWidth > 0) {
      const w = indentWidth(doc.lines[i].text);
      if (w < atWidth) {
        at = i;
        atWidth = w;
      }
    }
  }
  const line = at >= 0 ? at : first;
  const indent = line >= 0 ? doc.lines[line].text.slice(0, indentWidth(doc.lines[line].text)) : '';
  const s = run.start - base;
  const e = run.end - base;
  // (a run whose code the parser saw no statement start in, such as code under a C preprocessor
  // conditional, still names the definitions inside it; it ends none: lastCode -1)
  const names = info?.hidden === 'named' ? hiddenDefinitions(syntax!, s, e, lastCode) : info?.hidden === 'counted' ? hiddenCount(syntax!, s, e) : '';
  return { indent, names };
}

/** Length of the leading spaces and tabs. */
function indentWidth(t: string): number {
  let w = 0;
  while (w < t.length && (t.charCodeAt(w) === 32 || t.charCodeAt(w) === 9)) w++;
  return w;
}

/** A marker names at most this many definitions; the rest are counted ("and 12 more"). */
export const MARKER_NAMES_MAX = 4;

/** A name longer than this is shown up to its first `<` or `(` (a C++ specialization, a Ruby `def self.x(...)`). */
const NAME_CHARS_MAX = 40;

/** A definition's name as a marker shows it: on one line, not a whole template argument list. */
export function markerName(name: string): string {
  // one line, and no ", " inside a name (a marker's list separates names with it)
  const flat = name.replace(/\s+/g, ' ').replace(/, /g, ',');
  if (flat.length <= NAME_CHARS_MAX) return flat;
  const head = /^[^<(]*/.exec(flat)![0].trim();
  return head.length > 0 && head.length <= NAME_CHARS_MAX ? head : flat.slice(0, NAME_CHARS_MAX);
}

interface NamedDefinition {
  start: number;
  end: number;
  name: string;
}

const definitionsByIndex = new WeakMap<SyntaxIndex, NamedDefinition[]>();

/** The named definitions of a syntax index, in order of their first line, named as markers show them. */
function namedDefinitions(syntax: SyntaxIndex): NamedDefinition[] {
  let defs = definitionsByIndex.get(syntax);
  if (!defs) {
    defs = syntax.scopes
      .filter((sc) => sc.isDefinition && sc.name)
      .map((sc) => ({ start: sc.start, end: sc.end, name: markerName(sc.name!) }))
      .sort((a, b) => a.start - b.start || b.end - a.end);
    definitionsByIndex.set(syntax, defs);
  }
  return defs;
}

/**
 * What a run of segment lines s..e hides, as a marker says it: the definitions it ends (begun
 * before it, ended before its last statement `lastCode`: "rest of f"), then those wholly inside
 * it, outermost first, at most MARKER_NAMES_MAX named and the others (nested ones too) counted.
 * Work: a binary search and one step per definition inside the run.
 */
export function hiddenDefinitions(syntax: SyntaxIndex, s: number, e: number, lastCode: number): string {
  const rest: string[] = [];
  const enclosing = syntax.lines[s]?.scopes ?? [];
  for (let j = enclosing.length - 1; j >= 0; j--) {
    const sc = syntax.scopes[enclosing[j]];
    if (sc?.isDefinition && sc.name && sc.start < s && sc.end < lastCode) rest.push(markerName(sc.name));
  }
  const defs = namedDefinitions(syntax);
  const named: string[] = [];
  let more = 0;
  let outerEnd = -1;
  for (let d = firstDefinitionFrom(defs, s); d < defs.length && defs[d].start <= e; d++) {
    const def = defs[d];
    if (def.end > e) continue;
    if (def.start > outerEnd && named.length < MARKER_NAMES_MAX) {
      named.push(def.name);
      outerEnd = def.end;
    } else {
      more++;
      if (def.start > outerEnd) outerEnd = def.end;
    }
  }
  const inside = named.join(', ') + (more > 0 ? ` and ${more} more` : '');
  if (rest.length === 0) return inside;
  return inside ? `rest of ${rest.join(', ')}; ${inside}` : `rest of ${rest.join(', ')}`;
}

/** The definitions wholly inside lines s..e, counted as a marker says it ("3 definitions"; "" for none). Work: a binary search and one step per definition inside. */
export function hiddenCount(syntax: SyntaxIndex, s: number, e: number): string {
  const defs = namedDefinitions(syntax);
  let n = 0;
  for (let d = firstDefinitionFrom(defs, s); d < defs.length && defs[d].start <= e; d++) if (defs[d].end <= e) n++;
  return n === 0 ? '' : `${n} ${n === 1 ? 'definition' : 'definitions'}`;
}

/** Index of the first definition starting at or after line s. */
function firstDefinitionFrom(defs: readonly NamedDefinition[], s: number): number {
  let lo = 0;
  let hi = defs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (defs[mid].start < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  const shape = runShape(doc, run, info);
  const range = shape.names ? `(${a}-${b}): ${shape.names}` : `(${a}-${b})`;
  const comment = info?.lineComment ?? null;
  let body: string;
  if (placeholder !== undefined) {
    body = comment ? `${placeholder}  ${comment} ${count} ${noun} ${verb} ${range}` : `${placeholder}`;
  } else {
    body = comment ? `${shape.indent}${comment} ... ${count} ${noun} ${verb} ${range}` : `${shape.indent}... ${count} ${noun} ${verb} ${range}`;
  }
  if (doc.shape === 'numbered') {
    // Keep the code column aligned: blank number field of the same width, then the tab.
    const m = /^(\s*\d+)(\t|→)/.exec(first.prefix);
    const width = m ? m[1].length : 6;
    return `${' '.repeat(width)}${m ? m[2] : '\t'}${body}`;
  }
  return body;
}

/**
 * A marker piece as it reads with the definitions it hides named, or null when it names nothing
 * more (no syntax index, nothing hidden, or already named). Names go only into a comment: a
 * marker that is not one (a language without line comments) stays as it was laid out.
 */
export function namedMarkerText(doc: Document, piece: RenderPiece): string | null {
  const info = piece.marker?.info;
  if (!piece.run || !info?.syntax || info.hidden === 'named' || !info.lineComment) return null;
  const named = markerText(doc, piece.run, { ...info, hidden: 'named' }, piece.marker!.placeholder);
  return named === piece.line ? null : named;
}

/**
 * The runs that become markers: the omitted runs, each split after the block whose placeholder it
 * carries when it goes on past that block (the placeholder's marker sits at the block's depth;
 * what follows the block gets a marker at its own). Returned with each run's placeholder.
 */
export function markerRuns(doc: Document, mask: Uint8Array, infos: SegmentRenderInfo[]): { run: OmittedRun; placeholder?: string }[] {
  const out: { run: OmittedRun; placeholder?: string }[] = [];
  const segmentPos = segmentPositions(doc);
  for (const run of omittedRuns(doc, mask)) {
    const segId = doc.lines[run.start].segment;
    const info = infos[segId];
    let ph: Placeholder | undefined;
    if (info && info.placeholders.size > 0) {
      for (let k = run.start; k <= run.end && ph === undefined; k++) ph = info.placeholders.get(segmentPos[k]);
    }
    if (!ph) {
      out.push({ run });
      continue;
    }
    // input index of the block's last line (segments of a parsed file are contiguous)
    const blockEnd = run.start + (ph.end - segmentPos[run.start]);
    let code = 0;
    for (let i = blockEnd + 1; i <= run.end && code < 2; i++) if (doc.lines[i].text.trim() !== '') code++;
    // a rest of one non-blank line would be a marker standing for that line: it stays with the block
    if (blockEnd >= run.start && blockEnd < run.end && code >= 2) {
      out.push({ run: { start: run.start, end: blockEnd }, placeholder: ph.text });
      out.push({ run: { start: blockEnd + 1, end: run.end } });
    } else out.push({ run, placeholder: ph.text });
  }
  return out;
}

/** Lay out the output as pieces (kept lines and markers) without joining them. */
export function layout(doc: Document, mask: Uint8Array, infos: SegmentRenderInfo[]): RenderPiece[] {
  const pieces: RenderPiece[] = [];
  const runs = markerRuns(doc, mask, infos);
  let r = 0;
  const n = doc.lines.length;
  for (let i = 0; i < n; ) {
    if (mask[i]) {
      const l = doc.lines[i];
      pieces.push({ line: l.prefix + l.text, eol: l.eol, source: i, segment: l.segment, code: l.text });
      i++;
      continue;
    }
    const { run, placeholder } = runs[r++];
    const segId = doc.lines[run.start].segment;
    // The marker takes the terminator of the run's last line (so a missing final newline stays missing).
    const line = markerText(doc, run, infos[segId], placeholder);
    const code = doc.shape === 'numbered' ? line.replace(/^\s*(\t|→)/, '') : line;
    pieces.push({
      line,
      eol: doc.lines[run.end].eol === '' ? '' : doc.eol,
      source: -1,
      segment: segId,
      code,
      run,
      marker: { info: infos[segId], placeholder },
    });
    i = run.end + 1;
  }
  return pieces;
}

/** The runs of the laid-out markers (what the result reports as omitted, one range per marker). */
export function piecesRuns(pieces: readonly RenderPiece[]): OmittedRun[] {
  const out: OmittedRun[] = [];
  for (const p of pieces) if (p.run) out.push(p.run);
  return out;
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
 * line numbers (what the markers name), a range ending where the numbers stop being consecutive
 * and, given the markers' runs, where a marker ends.
 */
export function fileRanges(doc: Document, mask: Uint8Array, runs?: readonly OmittedRun[]): FileRanges[] {
  let runEnds: Uint8Array | undefined;
  if (runs) {
    runEnds = new Uint8Array(doc.lines.length);
    for (const r of runs) runEnds[r.end] = 1;
  }
  return doc.segments.map((seg) => {
    const out: FileRanges = { ...(seg.path !== undefined ? { path: seg.path } : {}), kept: [], omitted: [] };
    let run: { keep: boolean; start: number; end: number } | null = null;
    let cut = false;
    const flush = () => {
      if (run) (run.keep ? out.kept : out.omitted).push([run.start, run.end]);
    };
    for (const i of seg.lines) {
      const no = doc.lines[i].lineNo;
      if (no === null) {
        cut ||= runEnds?.[i] === 1;
        continue;
      }
      const keep = mask[i] === 1;
      if (run && !cut && run.keep === keep && no === run.end + 1) run.end = no;
      else {
        flush();
        run = { keep, start: no, end: no };
      }
      cut = runEnds?.[i] === 1;
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
 * What follows the range (": rest of f; g, h and 2 more", the definitions hidden) is not captured.
 */
export const MARKER_RE = new RegExp(
  String.raw`\b(\d+) lines? (?:omitted|${SEEN_VERB}(?:, then at \d+-\d+)?)(?:, \d+ match(?:es)?)? \((?:(.*):)?(\d+)-(\d+)\)(?:: .*)?\s*$`,
);
