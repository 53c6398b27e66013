/**
 * Ingest: turn raw tool output into a Document: lines with their verbatim prefixes and original
 * line numbers, grouped into per-file segments. Detects the input shape (raw file, `cat -n` /
 * `nl -ba`, `grep -n` / `rg -n`, several files with `==> path <==` headers).
 */
import type { Document, InputLine, InputShape, Segment } from '../types.js';

export interface IngestOptions {
  path?: string;
  /** Language for every segment (forced by the caller). */
  language?: string;
  /** Raw input only: the file line number of the input's first line (a window such as `sed -n 120,180p`). */
  firstLine?: number;
  /** The input is grep output over these files (the caller ran the search): lines are read against them first. */
  grepFiles?: string[];
  /** Language detector, injected so ingest stays free of the syntax layer. */
  detectLanguage: (path: string | undefined, content: string) => string;
}

interface RawLine {
  text: string;
  eol: string;
}

/**
 * Number of lines as splitLines counts them (a final newline does not start a new line), without
 * building them; counting stops at `stopAt`.
 */
export function countLines(code: string, stopAt = Infinity): number {
  if (code.length === 0) return 0;
  let n = 0;
  let last = -1;
  for (let i = code.indexOf('\n'); i !== -1 && n < stopAt; i = code.indexOf('\n', i + 1)) {
    n++;
    last = i;
  }
  if (n >= stopAt) return n;
  return last === code.length - 1 ? n : n + 1;
}

export function splitLines(code: string): { lines: RawLine[]; finalNewline: boolean; eol: '\n' | '\r\n' } {
  const lines: RawLine[] = [];
  let crlf = 0;
  let lf = 0;
  let start = 0;
  for (;;) {
    const nl = code.indexOf('\n', start);
    if (nl === -1) {
      if (start < code.length) lines.push({ text: code.slice(start), eol: '' });
      break;
    }
    if (nl > start && code.charCodeAt(nl - 1) === 13) {
      lines.push({ text: code.slice(start, nl - 1), eol: '\r\n' });
      crlf++;
    } else {
      lines.push({ text: code.slice(start, nl), eol: '\n' });
      lf++;
    }
    start = nl + 1;
  }
  const finalNewline = code.length > 0 && code.endsWith('\n');
  return { lines, finalNewline, eol: crlf > lf ? '\r\n' : '\n' };
}

// `cat -n` / `nl -ba`: right-aligned number + tab. Also the "  12→code" style of some agent read tools.
const NUMBERED_RE = /^(\s*)(\d+)(\t|→)/;
// `nl` (without -ba) leaves blank lines unnumbered: only spaces (possibly followed by a tab).
const NUMBERED_BLANK_RE = /^\s*$/;
const GREP_SEPARATOR = '--';
const MULTI_HEADER_RE = /^==> (.+) <==$/;

/**
 * The shape of an input. What the caller said comes first: grep output over files it names is
 * grep; a raw window (`firstLine`) is raw. An input named by its `path` is grep output only of
 * that file (`grep -n x FILE`: `12:text`, or `FILE:12:text`): lines naming other files are its
 * text (a pylint expectation file is all `name:12:...` lines).
 */
function detectShape(lines: RawLine[], opts: Pick<IngestOptions, 'path' | 'firstLine' | 'grepFiles'>): InputShape {
  if (opts.grepFiles !== undefined) return 'grep';
  if (opts.firstLine !== undefined) return 'raw';
  const sample = lines.slice(0, 2000);
  let nonEmpty = 0;
  let numbered = 0;
  let headers = 0;
  for (const { text } of sample) {
    if (text.trim() === '') continue;
    nonEmpty++;
    if (NUMBERED_RE.test(text)) numbered++;
    if (MULTI_HEADER_RE.test(text)) headers++;
  }
  if (nonEmpty === 0) return 'raw';
  if (numbered / nonEmpty >= 0.9) return 'numbered';
  if (headers >= 1 && MULTI_HEADER_RE.test(lines[0]?.text ?? '')) return 'multi';
  // grep output: 90% of the non-empty lines parse as grep lines. Counted until that share is out
  // of reach (plain code is, after about a tenth of its lines: the parse is the costly test).
  const ofInput = (g: GrepLine | null) => g !== null && (opts.path === undefined || g.path === '' || g.path === opts.path);
  let grepLike = 0;
  let left = nonEmpty;
  for (const { text } of sample) {
    if (text.trim() === '') continue;
    left--;
    if (text === GREP_SEPARATOR || ofInput(parseGrepLine(text, opts.path))) grepLike++;
    else if ((grepLike + left) / nonEmpty < 0.9) return 'raw';
  }
  if (grepLike / nonEmpty >= 0.9 && hasGrepMatch(sample, ofInput, opts.path)) return 'grep';
  return 'raw';
}

/** Grep output has a match line (`path:12:` or `12:`), not only context lines; plain code rarely does. */
function hasGrepMatch(sample: RawLine[], ofInput: (g: GrepLine | null) => boolean, path: string | undefined): boolean {
  return sample.some(({ text }) => {
    const g = parseGrepLine(text, path);
    return g?.isMatch === true && ofInput(g);
  });
}

interface GrepLine {
  path: string;
  lineNo: number;
  isMatch: boolean;
  prefix: string;
  text: string;
}

const GREP_MATCH_RE = /^(.*?):(\d+):/;
const GREP_CONTEXT_RE = /^(.*?)-(\d+)-/;
const GREP_NOPATH_MATCH_RE = /^(\d+):/;
const GREP_NOPATH_CONTEXT_RE = /^(\d+)-/;

/**
 * A path before `:12:` may contain colons only where paths do: a drive (`C:/src/a.py`,
 * `C:\src\a.py`), or between path characters of a name with a slash (`src/a:b.py`). Code such as
 * `case 1:2:` or `key: 12:` is not a path.
 */
function colonsInPathOk(path: string): boolean {
  if (!path.includes(':')) return true;
  const rest = path.replace(/^[A-Za-z]:(?=[\\/])/, '');
  return !rest.includes(':') || (/[\\/]/.test(rest) && /^[^\s:]+(:[^\s:]+)*$/.test(rest));
}

/** Longest path tried against the files a caller named. */
const MAX_KNOWN_PATH = 4096;

/** A grep line of one of `files` (`path:12:text` or `path-12-text`), when it is one. */
function parseKnownGrepLine(text: string, files: ReadonlySet<string>): GrepLine | null {
  const end = Math.min(text.length, MAX_KNOWN_PATH);
  for (let i = 1; i < end; i++) {
    const sep = text[i];
    if ((sep !== ':' && sep !== '-') || !files.has(text.slice(0, i))) continue;
    const m = /^(\d+)([:-])/.exec(text.slice(i + 1));
    if (m && m[2] === sep) {
      const prefix = text.slice(0, i + 1) + m[0];
      return { path: text.slice(0, i), lineNo: Number(m[1]), isMatch: sep === ':', prefix, text: text.slice(prefix.length) };
    }
  }
  return null;
}

/** Nine in ten of the lines (separators aside) start with a line number: grep output of one file, without paths. */
function withoutPaths(raw: readonly RawLine[]): boolean {
  let lines = 0;
  let numbered = 0;
  for (const { text } of raw) {
    if (text === GREP_SEPARATOR || text.trim() === '') continue;
    lines++;
    if (GREP_NOPATH_MATCH_RE.test(text) || GREP_NOPATH_CONTEXT_RE.test(text)) numbered++;
  }
  return lines > 0 && numbered >= 0.9 * lines;
}

/**
 * Parse one grep/rg line; `knownPath` (the previous line's path) disambiguates context lines of
 * paths that contain "-", and after a line without a path (`grep -n PAT FILE`) a line is read
 * without one first: `1431-  f("1.23:0042:")` is line 1431, not line 42 of a file `1431-  f("1.23`.
 */
function parseGrepLine(text: string, knownPath: string | undefined): GrepLine | null {
  if (knownPath === '') {
    const m = GREP_NOPATH_MATCH_RE.exec(text) ?? GREP_NOPATH_CONTEXT_RE.exec(text);
    if (m) return { path: '', lineNo: Number(m[1]), isMatch: m[0].endsWith(':'), prefix: m[0], text: text.slice(m[0].length) };
  }
  if (knownPath !== undefined && knownPath !== '') {
    for (const sep of [':', '-']) {
      const head = knownPath + sep;
      if (text.startsWith(head)) {
        const rest = text.slice(head.length);
        const m = /^(\d+)([:-])/.exec(rest);
        if (m && m[2] === sep) {
          const prefix = head + m[0];
          return { path: knownPath, lineNo: Number(m[1]), isMatch: sep === ':', prefix, text: text.slice(prefix.length) };
        }
      }
    }
  }
  let m = GREP_MATCH_RE.exec(text);
  if (m && m[1] !== '' && !/\s$/.test(m[1]) && colonsInPathOk(m[1]) && !/^\s/.test(m[1])) {
    return { path: m[1], lineNo: Number(m[2]), isMatch: true, prefix: m[0], text: text.slice(m[0].length) };
  }
  m = GREP_CONTEXT_RE.exec(text);
  if (m && m[1] !== '' && /[./]/.test(m[1]) && !/\s/.test(m[1])) {
    return { path: m[1], lineNo: Number(m[2]), isMatch: false, prefix: m[0], text: text.slice(m[0].length) };
  }
  m = GREP_NOPATH_MATCH_RE.exec(text);
  if (m) return { path: '', lineNo: Number(m[1]), isMatch: true, prefix: m[0], text: text.slice(m[0].length) };
  m = GREP_NOPATH_CONTEXT_RE.exec(text);
  if (m) return { path: '', lineNo: Number(m[1]), isMatch: false, prefix: m[0], text: text.slice(m[0].length) };
  return null;
}

export function ingest(code: string, opts: IngestOptions): Document {
  const { lines: raw, finalNewline, eol } = splitLines(code);
  const shape = detectShape(raw, opts);
  const grepFiles = opts.grepFiles ? new Set(opts.grepFiles) : null;
  const lines: InputLine[] = [];
  const segments: Segment[] = [];

  const newSegment = (path: string | undefined, contiguous: boolean): Segment => {
    const seg: Segment = { id: segments.length, path, language: 'text', lines: [], contiguous };
    segments.push(seg);
    return seg;
  };
  const push = (r: RawLine, prefix: string, text: string, lineNo: number | null, seg: Segment | null, isMatch?: boolean) => {
    const line: InputLine = { index: lines.length, prefix, text, eol: r.eol, lineNo, segment: seg ? seg.id : -1 };
    if (isMatch !== undefined) line.isMatch = isMatch;
    lines.push(line);
    seg?.lines.push(line.index);
  };

  if (shape === 'raw') {
    const seg = newSegment(opts.path, true);
    const first = opts.firstLine ?? 1;
    raw.forEach((r, i) => push(r, '', r.text, first + i, seg));
  } else if (shape === 'numbered') {
    const seg = newSegment(opts.path, true);
    for (const r of raw) {
      const m = NUMBERED_RE.exec(r.text);
      if (m) push(r, m[0], r.text.slice(m[0].length), Number(m[2]), seg);
      else if (NUMBERED_BLANK_RE.test(r.text)) push(r, r.text, '', null, seg);
      else push(r, '', r.text, null, seg); // a stray line (tool banner): kept as code, no number
    }
  } else if (shape === 'multi') {
    let seg: Segment | null = null;
    let lineNo = 0;
    for (let i = 0; i < raw.length; i++) {
      const r = raw[i];
      const h = MULTI_HEADER_RE.exec(r.text);
      if (h) {
        // The blank line head(1) puts before a header belongs to the layout, not to the file.
        const prev = lines[lines.length - 1];
        if (prev && prev.text === '' && prev.segment !== -1 && seg) {
          seg.lines.pop();
          prev.segment = -1;
          prev.lineNo = null;
        }
        push(r, '', r.text, null, null);
        seg = newSegment(h[1], true);
        lineNo = 0;
        continue;
      }
      if (!seg) seg = newSegment(opts.path, true);
      push(r, '', r.text, ++lineNo, seg);
    }
  } else {
    // grep: one segment per path, in order of first appearance; "--" separators are layout.
    const byPath = new Map<string, Segment>();
    // output of one file (`grep -n PAT FILE`) is read without paths from its first line on
    let lastPath: string | undefined = withoutPaths(raw) ? '' : undefined;
    for (const r of raw) {
      if (r.text === GREP_SEPARATOR) {
        push(r, '', r.text, null, null);
        continue;
      }
      const g = (grepFiles && parseKnownGrepLine(r.text, grepFiles)) || parseGrepLine(r.text, lastPath);
      if (!g) {
        // Not a grep line (e.g. "Binary file x matches"): layout, kept verbatim.
        push(r, '', r.text, null, null);
        continue;
      }
      lastPath = g.path;
      let seg = byPath.get(g.path);
      if (!seg) {
        seg = newSegment(g.path || opts.path, false);
        byPath.set(g.path, seg);
      }
      push(r, g.prefix, g.text, g.lineNo, seg, g.isMatch);
    }
  }

  for (const seg of segments) {
    if (opts.language) {
      seg.language = opts.language;
    } else {
      const sample = seg.lines
        .slice(0, 200)
        .map((i) => lines[i].text)
        .join('\n');
      seg.language = opts.detectLanguage(seg.path, sample);
    }
  }
  return { shape, lines, segments, eol, finalNewline };
}
