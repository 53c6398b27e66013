/**
 * Compiler and linter diagnostics as blocks: a diagnostic is its header line (`warning: unused
 * variable: `x``, `a.c:3:9: warning: ... [-Wflag]`, `A.java:12: warning: [rawtypes] ...`,
 * `src/a.ts:4:5 - error TS2532: ...`, eslint's `  4:5  warning  message  rule`) and the lines that
 * belong to it (where it is, the source with its gutter and caret, its notes and help), with its
 * severity and its kind (the rustc lint, gcc's `-Wflag`, javac's lint, eslint's rule, tsc's code,
 * else its message without the names in it). Lines that set the scene for the diagnostics after
 * them (gcc's `In file included from`, `a.c: In function ‘f’:`, eslint's file) are their context.
 */
import { DROPPED_NOTE_RE } from '../dropped.js';

export type Severity = 'error' | 'warning' | 'note' | 'help';

export interface DiagnosticBlock {
  /** 0-based lines: its header, and the last line that belongs to it. */
  from: number;
  to: number;
  severity: Severity;
  kind: string;
  /** The context lines the block shares with the blocks around it (0-based, inclusive), or null. */
  context: [number, number] | null;
}

/**
 * The summary of a build (`warning: `x` (bin "x") generated 80 warnings`, rustc's `warning: 2
 * warnings emitted`, `error: could not compile`, `N errors generated.`, javac's `1 error` / `69
 * warnings`, eslint's `✖ 55 problems`, tsc's `Found 3 errors`): always shown, never part of a
 * diagnostic.
 */
export const DIAGNOSTIC_SUMMARY =
  /^(warning|error): .*\bgenerated \d+ warnings?\b|^error: (could not compile|aborting due to|build failed)\b|^warning: build failed\b|^warning: \d+ warnings? emitted$|^(Some errors have detailed explanations|For more information about (this|an) error)|^\d+ (errors?|warnings?)( and \d+ (errors?|warnings?))?( generated)?\.?$|✖ \d+ problems?|^\s+\d+ errors? and \d+ warnings? potentially fixable|^Found \d+ errors?\b|^cc1\w*: (all )?warnings being treated as errors|^compilation terminated\.$/;

type Format = 'rustc' | 'located' | 'javac' | 'tsc' | 'tsc-pretty' | 'eslint';

interface Header {
  format: Format;
  severity: Severity;
  /** The kind the header names (a code, a flag, a rule), else undefined. */
  kind?: string;
  message: string;
}

/** rustc and cargo: `error[E0499]: ...`, `warning: ...` at the start of a line. */
const RUSTC = /^(error|warning)(?:\[(\w+)\])?: (.*)$/;
/** A rustc diagnostic's own lines: where (`-->`, `:::`), the gutter, `= note:`, numbered source and suggestion lines. */
const RUSTC_BODY = /^\s*(-->|::: |\||= |\.\.\.)|^\s*\d+\s*[|+~-](\s|$)|^(note|help)(\[\w+\])?: /;
const RUSTC_NOTE = /^\s*= (note|help): /;
/** gcc, clang, mypy, javac: `path:line[:col]: severity: message`. */
const LOCATED = /^([^\s:][^:]*):\d+(?::\d+)?: (fatal error|error|warning|note): (.*)$/;
/** gcc's source and caret lines (`  98 |  code`, `     |  ^~~`) and fix-it lines (`  +++ |+#include`). */
const GCC_BODY = /^\s*(\d+ |\+\+\+ )?\|/;
const TSC = /^\S+\(\d+,\d+\): (error|warning|message) (TS\d+): (.*)$/;
const TSC_PRETTY = /^\S+:\d+:\d+ - (error|warning|message) (TS\d+): (.*)$/;
/** eslint's stylish reporter: `  4:5  warning  message  rule` (the rule split off by eslintRule). */
const ESLINT = /^\s+\d+:\d+\s+(error|warning)\s+(\S.*)$/;
/** gcc's include chain before a diagnostic: `In file included from a.h:3,` then `                 from a.c:1:`. */
export const INCLUDE_CHAIN = /^In file included from \S+:\d+[:,]$|^\s+from \S+:\d+[:,]$/;
/** gcc's and clang's scene for the diagnostics after it: the include chain, the function, the instantiation. */
const GCC_CONTEXT = new RegExp(
  `${INCLUDE_CHAIN.source}|${/^\S+: (In|At) .+:$|^\S+:\d+:\d+:\s+(required from|required by|recursively required from|in expansion of|in definition of)\b/.source}`,
);
/** The lint a rustc note names (`#[warn(unused_variables)]` on by default). */
const RUSTC_LINT = /#\[(?:warn|deny|forbid)\((\w+)\)\]/;
/** A lint or rule in brackets: gcc's trailing `[-Wsign-conversion]`, mypy's `[assignment]`, javac's leading `[rawtypes]`. */
const TRAILING_KIND = /\s\[([-\w=+]+)\]$/;
const LEADING_KIND = /^\[([\w-]+)\] /;

function severityOf(word: string): Severity {
  if (word === 'fatal error' || word === 'error') return 'error';
  if (word === 'warning') return 'warning';
  return 'note';
}

function headerOf(line: string): Header | null {
  let m = RUSTC.exec(line);
  if (m) return { format: 'rustc', severity: severityOf(m[1]), kind: m[2] ?? LEADING_KIND.exec(m[3])?.[1], message: m[3] };
  m = LOCATED.exec(line);
  if (m) {
    const kind = TRAILING_KIND.exec(m[3])?.[1] ?? LEADING_KIND.exec(m[3])?.[1];
    return { format: m[1].endsWith('.java') ? 'javac' : 'located', severity: severityOf(m[2]), kind, message: m[3] };
  }
  m = TSC_PRETTY.exec(line) ?? TSC.exec(line);
  if (m) return { format: TSC_PRETTY.test(line) ? 'tsc-pretty' : 'tsc', severity: m[1] === 'message' ? 'note' : severityOf(m[1]), kind: m[2], message: m[3] };
  m = ESLINT.exec(line);
  if (m) return { format: 'eslint', severity: severityOf(m[1]), ...eslintRule(m[2]) };
  return null;
}

/**
 * eslint's message and its rule, the last word after two spaces or more (else no rule), found by
 * walking back from the end: a regex splitting it tries each run of spaces to the end of the line,
 * quadratic on a long one.
 */
function eslintRule(text: string): { message: string; kind?: string } {
  let word = text.length;
  while (word > 0 && !/\s/.test(text[word - 1])) word--;
  let gap = word;
  while (gap > 0 && /\s/.test(text[gap - 1])) gap--;
  if (word < text.length && word - gap >= 2 && gap > 0) return { message: text.slice(0, gap), kind: text.slice(word) };
  return { message: text };
}

/** A message without the names in it: `unused variable: `x`` and `unused variable: `y`` are one kind. */
export function messageKind(message: string): string {
  // (read from its first characters: a kind is a few words, and a line may be megabytes long)
  let kind = withoutQuoted(message.slice(0, KIND_READ_CHARS)).replace(/\s+/g, ' ');
  let end = kind.length;
  while (end > 0 && TRAILING_PUNCTUATION.has(kind[end - 1])) end--;
  kind = kind.slice(0, end).trim();
  // (a marker names it: at most its first words)
  return kind.length <= MAX_KIND_CHARS ? kind : kind.slice(0, kind.lastIndexOf(' ', MAX_KIND_CHARS)).replace(/[\s:;,.(]+$/, '');
}

/** Characters of a message its kind is read from. */
export const KIND_READ_CHARS = 1000;
const TRAILING_PUNCTUATION = new Set([' ', ':', ';', ',', '.']);
const CLOSING_QUOTE: Record<string, string> = { '`': '`', '‘': '’', "'": "'", '"': '"' };

/**
 * The text without its quoted spans (`x`, ‘x’, 'x', "x"), in one pass: a quote never closed is
 * kept as it is, and not looked for again (a regex would scan to the end from each one).
 */
function withoutQuoted(text: string): string {
  const parts: string[] = [];
  const unclosed = new Set<string>();
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const close = CLOSING_QUOTE[text[i]];
    if (close === undefined || unclosed.has(text[i])) continue;
    const j = text.indexOf(close, i + 1);
    if (j < 0) {
      unclosed.add(text[i]);
      continue;
    }
    parts.push(text.slice(from, i));
    from = j + 1;
    i = j;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

const MAX_KIND_CHARS = 60;

/** Does line i (after the header at `from`) belong to the open diagnostic? */
function belongs(format: Format, lines: readonly string[], from: number, i: number): boolean {
  const l = lines[i];
  switch (format) {
    case 'rustc':
      // (a note on two lines: `= note: expected struct `Vec<u32>``, then `found struct `Vec<i64>`` under it)
      return RUSTC_BODY.test(l) || (/^\s+\S/.test(l) && i > 0 && RUSTC_NOTE.test(lines[i - 1]));
    case 'located':
      return GCC_BODY.test(l);
    case 'javac':
      // the source line, its caret, then the details javac indents (`  symbol:`, `  where T is`)
      return l.trim() !== '' && (i === from + 1 || /^\s*\^\s*$/.test(l) || /^\s/.test(l));
    case 'tsc':
      return /^\s/.test(l) && l.trim() !== '';
    case 'tsc-pretty':
      // the source, its squiggle and related locations, between blank lines, until the next diagnostic
      return true;
    case 'eslint':
      return false;
  }
}

function isFileLine(l: string): boolean {
  return l.trim() !== '' && !/^\s/.test(l) && !DIAGNOSTIC_SUMMARY.test(l) && !DROPPED_NOTE_RE.test(l);
}

/** The diagnostic blocks of a compiler's or linter's output, in order. */
export function diagnosticBlocks(lines: readonly string[]): DiagnosticBlock[] {
  const blocks: DiagnosticBlock[] = [];
  const formats: Format[] = [];
  const messages: string[] = [];
  let open: DiagnosticBlock | null = null;
  let format: Format | null = null;
  /** The last line the open diagnostic's own note started at (its body follows that note). */
  let bodyFrom = 0;
  let context: [number, number] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    // (the note of a dropped middle belongs to no diagnostic: it is always shown)
    if (DIAGNOSTIC_SUMMARY.test(l) || DROPPED_NOTE_RE.test(l)) {
      open = null;
      context = null;
      continue;
    }
    const h = headerOf(l);
    // a note after a diagnostic is the diagnostic's (gcc's `note: in expansion of macro`, its
    // candidates, mypy's notes), with the include chain gcc prints before a note in another file
    const last = blocks.at(-1);
    if (h && h.severity === 'note' && last && h.format === format && (open || (context && context[0] === last.to + 1 && context[1] === i - 1))) {
      open = last;
      open.to = i;
      context = last.context;
      bodyFrom = i;
      continue;
    }
    if (h) {
      // eslint's file name: the line before its first diagnostic (not a summary or the note of a dropped middle)
      if (h.format === 'eslint' && !context && !open && i > 0 && isFileLine(lines[i - 1])) context = [i - 1, i - 1];
      open = { from: i, to: i, severity: h.severity, kind: h.kind ?? '', context: h.format === 'eslint' || h.format === 'located' ? context : null };
      format = h.format;
      bodyFrom = i;
      blocks.push(open);
      formats.push(h.format);
      messages.push(h.message);
      continue;
    }
    if (open && format && belongs(format, lines, bodyFrom, i)) {
      if (l.trim() !== '') open.to = i;
      continue;
    }
    open = null;
    if (GCC_CONTEXT.test(l)) {
      context = context && context[1] === i - 1 ? [context[0], i] : [i, i];
      continue;
    }
    // anything else (a blank line between eslint's files, a build step) ends the scene
    context = null;
  }
  nameKinds(lines, blocks, formats, messages);
  return blocks;
}

/**
 * The kinds the headers did not name: a rustc warning's lint is named by a note under the first
 * of its kind only (`#[warn(unused_variables)]` on by default), so the others of its message take
 * it from there; else the message without its names is the kind.
 */
function nameKinds(lines: readonly string[], blocks: DiagnosticBlock[], formats: Format[], messages: string[]): void {
  const lintOf = new Map<string, string>();
  blocks.forEach((b, k) => {
    if (formats[k] !== 'rustc' || b.kind) return;
    for (let i = b.from + 1; i <= b.to; i++) {
      const m = RUSTC_LINT.exec(lines[i]);
      if (!m) continue;
      b.kind = m[1];
      lintOf.set(messageKind(messages[k]), m[1]);
      break;
    }
  });
  blocks.forEach((b, k) => {
    if (b.kind) return;
    const byMessage = messageKind(messages[k]);
    b.kind = (formats[k] === 'rustc' ? lintOf.get(byMessage) : undefined) ?? (byMessage || b.severity);
  });
}
