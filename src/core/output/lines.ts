/**
 * Output lines as the agent sees them: split without losing a byte, the identifiers a line names,
 * and a line's shape (what it looks like with its particulars masked), which decides which lines
 * "look alike" and can fold into one marker.
 */

export interface OutputLines {
  /** Line texts without their line ends. */
  lines: string[];
  /** Each line's end as printed ('\n', '\r\n', or '' for a last line without one). */
  ends: string[];
}

export function splitOutput(text: string): OutputLines {
  const lines: string[] = [];
  const ends: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 10) continue;
    const crlf = i > start && text.charCodeAt(i - 1) === 13;
    lines.push(text.slice(start, crlf ? i - 1 : i));
    ends.push(crlf ? '\r\n' : '\n');
    start = i + 1;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
    ends.push('');
  }
  return { lines, ends };
}

const TOKEN_RE = /[A-Za-z_][A-Za-z0-9_]{2,}|\d{2,}/g;

/** Words that name nothing in particular (they do not make a line relevant to a question). */
const COMMON = new Set(
  'the and for with not are was but this that from has have had you your def return self none true false import class print python python3 file line lines test tests error output'.split(
    ' ',
  ),
);

/** The identifiers and numbers a text names, lower-cased, without common words. */
export function termsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN_RE)) {
    const t = m[0].toLowerCase();
    if (!COMMON.has(t)) out.push(t);
  }
  return out;
}

/**
 * A line's shape: identifiers become `w`, numbers `0`, quoted strings `""`, hex ids `h`, runs of
 * spaces one space. Upper-case words (PASSED, ok, FAILED, ERROR) stay: they are what a line says.
 * "tests/a.py::test_x PASSED [ 10%]" and "tests/b.py::test_y PASSED [ 11%]" share a shape.
 */
export function shapeOf(line: string): string {
  return line
    .replace(/"[^"]*"|'[^']*'/g, '""')
    .replace(/\b[0-9a-f]{7,}\b/g, 'h')
    .replace(/\b(?![A-Z]{2,}\b)(?!ok\b)[A-Za-z_][A-Za-z0-9_.-]*/g, 'w')
    .replace(/\d+(\.\d+)?/g, '0')
    .replace(/(w[/\\])+w/g, 'w')
    .replace(/\s+/g, ' ')
    .trimEnd();
}

/** Blank (or only whitespace). */
/** How many spaces or tabs a line starts with. */
export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

export function isBlank(line: string): boolean {
  return line.trim().length === 0;
}

/** A 53-bit hash of a line (cyrb53): what session memory keeps of the lines it has shown. */
export function lineHash(line: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Too short or too common to count as having been shown (a blank, a brace, "OK"). */
export function isTrivial(line: string): boolean {
  return line.trim().length < 4;
}
