/**
 * The search behind `skim grep`, in-process (no grep binary, no shell), printed byte for byte as
 * GNU grep prints it: the same prefixes (`path:12:text`, `path-13-text` for context, `--` between
 * groups), -c/-l/-L/-q/-o/-b/-Z output, -m and context rules, file names shown by grep's rules,
 * "binary file matches" on stderr for files with NUL bytes or invalid UTF-8 output lines.
 * Differences that remain (documented in docs/grep.md): directories are always searched (as with
 * -r), a few never-wanted directories are skipped in a walk (SKIP_DIRS, ./walk.ts), the walk is in
 * sorted order (GNU grep: directory order), and files over 64 MiB, FIFOs and devices are reported
 * instead of read.
 */
import { isUtf8 } from 'node:buffer';
import { promises as fs, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { RE2JS } from 're2js';
import { SkimError } from '../core/errors.js';
import { isBinary } from '../tools/fileTools.js';
import { MAX_INPUT_BYTES, readRegularFile } from '../tools/readCapped.js';
import { walkFiles } from '../tools/walk.js';
import type { GrepMatcher } from './linePattern.js';

export type GrepOutputMode = 'lines' | 'count' | 'files-with-matches' | 'files-without-match' | 'quiet';

export interface GrepSearchOptions {
  matcher: GrepMatcher;
  /** -v */
  invert?: boolean;
  /** lines (default), -c, -l, -L, -q */
  mode?: GrepOutputMode;
  /** -o */
  onlyMatching?: boolean;
  /** -n */
  lineNumber?: boolean;
  /** -b */
  byteOffset?: boolean;
  /** -H (always), -h (never), or grep's rule: when several operands are given or a directory is searched. */
  filenames?: 'auto' | 'always' | 'never';
  /** -Z: a NUL byte after each file name instead of ':' / '-' / newline. */
  nullAfterName?: boolean;
  /** -B / -A (-C sets both): undefined when not given (no group separators then). */
  before?: number;
  after?: number;
  /** --group-separator (default "--"); null: --no-group-separator. */
  groupSeparator?: string | null;
  /** -m: stop reading a file after this many selected lines. */
  maxCount?: number;
  /** -d: recurse (default, as -r), skip, or read (a directory operand is an error, as in grep without -r). */
  directories?: 'recurse' | 'skip' | 'read';
  /** -R: follow symbolic links met in the walk (-r follows only those on the command line). */
  dereference?: boolean;
  /** --binary-files: binary (default), text (-a), without-match (-I). */
  binaryFiles?: 'binary' | 'text' | 'without-match';
  /** --include / --exclude in command-line order (the last matching one wins). */
  fileFilters?: Array<{ include: boolean; glob: string }>;
  /** --exclude-dir globs. */
  excludeDirs?: string[];
  /** skim's --glob: picomatch glob on the path below the searched directory. */
  glob?: string;
  /** -s: no messages about missing or unreadable files (the exit status still says 2). */
  noMessages?: boolean;
  /** --label: the name of standard input (default "(standard input)"). */
  label?: string;
  /** Directory the operands are relative to (default: process.cwd()). */
  cwd?: string;
  /** No operand was given and "." is searched: names are printed without "./", as grep -r does. */
  implicitDot?: boolean;
  /** Stop after this many selected lines in all (skim's cap when the output is pruned). */
  maxTotal?: number;
}

export interface GrepIO {
  /** Standard output. */
  write(text: string): void | Promise<void>;
  /** One message line on standard error (without the program name). */
  message(text: string): void;
  /** All of standard input (for the operand "-"). */
  readStdin(): Promise<Buffer>;
  /** Each whole line printed, with its file and line number (for session memory). */
  shown?(file: string, lineNo: number, text: string): void;
}

export interface GrepOutcome {
  /** Some line was selected (grep's exit status 0). */
  selected: boolean;
  /** Some file could not be searched (grep's exit status 2). */
  errors: boolean;
  /** Selected lines in all. */
  selectedLines: number;
  /** maxTotal cut the search short. */
  truncated: boolean;
}

const STDIN_NAME = '(standard input)';

/** strerror() wording for the errors a walk meets. */
function describe(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return 'No such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'Permission denied';
    case 'ENOTDIR':
      return 'Not a directory';
    case 'ELOOP':
      return 'Too many levels of symbolic links';
    case 'EISDIR':
      return 'Is a directory';
    default:
      return (err as Error)?.message ?? String(err);
  }
}

/**
 * fnmatch(3) without flags, as GNU grep matches --include/--exclude/--exclude-dir: `*` and `?`
 * match any character (also `/` and a leading `.`), `[...]` with `!` or `^` negation, `\` quotes.
 */
export function fnmatcher(glob: string): (name: string) => boolean {
  let re = '';
  const s = Array.from(glob);
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '*') re += '(?s:.*)';
    else if (c === '?') re += '(?s:.)';
    else if (c === '\\' && i + 1 < s.length) re += RE2JS.quote(s[++i]);
    else if (c === '[') {
      let j = i + 1;
      let neg = false;
      if (s[j] === '!' || s[j] === '^') {
        neg = true;
        j++;
      }
      const start = j;
      if (s[j] === ']') j++;
      while (j < s.length && s[j] !== ']') j++;
      if (j >= s.length) {
        re += '\\['; // no closing bracket: a literal "["
        continue;
      }
      let body = '';
      for (let k = start; k < j; k++) {
        if (s[k] === '[' && s[k + 1] === ':') {
          const e = s.indexOf(']', k + 2);
          if (e > 0 && e < j + 1 && s[e - 1] === ':') {
            body += s.slice(k, e + 1).join('');
            k = e;
            continue;
          }
        }
        if (s[k] === '-' && k > start && k + 1 < j) body += '-';
        else body += `\\x{${s[k].codePointAt(0)!.toString(16)}}`;
      }
      re += `[${neg ? '^' : ''}${body}]`;
      i = j;
    } else re += RE2JS.quote(c);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(`^(?:${re})$`);
  } catch {
    compiled = RE2JS.compile(`^${RE2JS.quote(glob)}$`);
  }
  return (name) => compiled.matches(name);
}

/** GNU's "name suffix" rule for command-line names: the whole name or any part after a `/`. */
function suffixMatch(match: (name: string) => boolean, name: string): boolean {
  if (match(name)) return true;
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    if (i + 1 < name.length && name[i + 1] !== '/' && match(name.slice(i + 1))) return true;
  }
  return false;
}

/**
 * Decode bytes that are not all valid UTF-8: each maximal invalid subpart becomes one U+FFFD (as
 * TextDecoder does), and `byteAt[k]` is the byte offset of UTF-16 unit k (for -b).
 */
function decodeLossy(bytes: Uint8Array): { text: string; byteAt: number[] } {
  let text = '';
  const byteAt: number[] = [];
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    let len = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) len = 1;
    else if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    }
    let k = 1;
    if (len > 1) {
      for (; k < len && i + k < n; k++) {
        const c = bytes[i + k];
        if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) break;
      }
    }
    if (len === 0 || k < len) {
      byteAt.push(i);
      text += '\uFFFD';
      i += Math.max(1, len === 0 ? 1 : k);
      continue;
    }
    const ch = Buffer.from(bytes.subarray(i, i + len)).toString('utf8');
    for (let u = 0; u < ch.length; u++) byteAt.push(i);
    text += ch;
    i += len;
  }
  byteAt.push(n);
  return { text, byteAt };
}

interface Lines {
  /** The lines as printed (bytes that are not UTF-8 as U+FFFD). */
  lines: string[];
  /** The lines as matched: bytes that are not UTF-8 become "\n", which no pattern matches (as in grep). */
  matchLines: string[];
  /** Per line: its bytes are not valid UTF-8 (null when the whole input is valid). */
  bad: Uint8Array | null;
  /** Per line: the byte offset of its start (only when asked for). */
  offsets: number[] | null;
  /** For lines that are not valid UTF-8: the byte offset (in the line) of each UTF-16 unit. */
  byteAt: Map<number, number[]> | null;
}

/** Split a file into lines at "\n" (and at NUL bytes for a binary file), as grep reads it. */
function splitLines(buf: Buffer, nulIsEol: boolean, wantOffsets: boolean): Lines {
  const valid = isUtf8(buf);
  if (valid && !wantOffsets) {
    const text = buf.toString('utf8');
    const lines = text === '' ? [] : nulIsEol ? text.split(/[\n\0]/) : text.split('\n');
    if (lines.length && (buf[buf.length - 1] === 0x0a || (nulIsEol && buf[buf.length - 1] === 0))) lines.pop();
    return { lines, matchLines: lines, bad: null, offsets: null, byteAt: null };
  }
  const lines: string[] = [];
  const offsets: number[] = [];
  const bad: number[] = [];
  const byteAt = new Map<number, number[]>();
  let start = 0;
  const n = buf.length;
  while (start < n) {
    let end = start;
    while (end < n && buf[end] !== 0x0a && !(nulIsEol && buf[end] === 0)) end++;
    const slice = buf.subarray(start, end);
    if (!valid && !isUtf8(slice)) {
      const d = decodeLossy(slice);
      bad.push(lines.length);
      byteAt.set(lines.length, d.byteAt);
      lines.push(d.text);
    } else lines.push(slice.toString('utf8'));
    offsets.push(start);
    start = end + 1;
  }
  let badMask: Uint8Array | null = null;
  let matchLines = lines;
  if (!valid) {
    badMask = new Uint8Array(lines.length);
    matchLines = lines.slice();
    for (const i of bad) {
      badMask[i] = 1;
      matchLines[i] = lines[i].replace(/\uFFFD/g, '\n');
    }
  }
  return { lines, matchLines, bad: badMask, offsets: wantOffsets ? offsets : null, byteAt };
}

/** One search's settings (resolved from its options once) and the state its files share. */
interface Search {
  opts: GrepSearchOptions;
  io: GrepIO;
  mode: GrepOutputMode;
  invert: boolean;
  showNames: boolean;
  contextGiven: boolean;
  before: number;
  after: number;
  separator: string | null;
  maxCount: number;
  maxTotal: number;
  binaryMode: 'binary' | 'text' | 'without-match';
  filters: Array<{ include: boolean; match: (name: string) => boolean }>;
  excludeDirs: Array<(name: string) => boolean>;
  globMatch: ((rel: string) => boolean) | null;
  outcome: GrepOutcome;
  /** Something was printed: a later group gets a separator (grep's static `used`). */
  used: boolean;
  /** -q after a match, or the maxTotal cap. */
  stop: boolean;
}

function newSearch(operands: string[], opts: GrepSearchOptions, io: GrepIO): Search {
  const nameMode = opts.filenames ?? 'auto';
  return {
    opts,
    io,
    mode: opts.mode ?? 'lines',
    invert: Boolean(opts.invert),
    showNames: nameMode === 'always' || (nameMode === 'auto' && operands.length > 1),
    contextGiven: opts.before !== undefined || opts.after !== undefined,
    before: Math.max(0, opts.before ?? 0),
    after: Math.max(0, opts.after ?? 0),
    separator: opts.groupSeparator === undefined ? '--' : opts.groupSeparator,
    maxCount: opts.maxCount ?? Infinity,
    maxTotal: opts.maxTotal ?? Infinity,
    binaryMode: opts.binaryFiles ?? 'binary',
    filters: (opts.fileFilters ?? []).map((f) => ({ include: f.include, match: fnmatcher(f.glob) })),
    excludeDirs: (opts.excludeDirs ?? []).map(fnmatcher),
    globMatch: opts.glob ? picomatch(opts.glob, { dot: true, basename: !opts.glob.includes('/') }) : null,
    outcome: { selected: false, errors: false, selectedLines: 0, truncated: false },
    used: false,
    stop: false,
  };
}

/** Search the operands (files, directories, "-") and print what grep would print. */
export async function runGrepSearch(operands: string[], opts: GrepSearchOptions, io: GrepIO): Promise<GrepOutcome> {
  const search = newSearch(operands, opts, io);
  for (const op of operands) {
    if (search.stop) break;
    await searchOperand(search, op);
  }
  return search.outcome;
}

/** A file could not be searched (a missing one's message is left out under -s). */
function report(search: Search, text: string, missing = true): void {
  search.outcome.errors = true;
  if (!(missing && search.opts.noMessages)) search.io.message(text);
}

/** --include/--exclude: the last one that matches wins; none matching: excluded only if the first is --include. */
function fileAllowed(search: Search, name: string, commandLine: boolean): boolean {
  const { filters } = search;
  if (filters.length === 0) return true;
  for (let k = filters.length - 1; k >= 0; k--) {
    const f = filters[k];
    if (commandLine ? suffixMatch(f.match, name) : f.match(name)) return f.include;
  }
  return !filters[0].include;
}

function dirExcluded(search: Search, name: string, commandLine: boolean): boolean {
  return search.excludeDirs.some((m) => (commandLine ? suffixMatch(m, name) : m(name)));
}

const nameSep = (search: Search, sep: string) => (search.opts.nullAfterName ? '\0' : sep);

/** One operand: standard input ("-"), a directory (walked) or a file. */
async function searchOperand(search: Search, op: string): Promise<void> {
  const { opts, io } = search;
  if (op === '-') {
    let buf: Buffer;
    try {
      buf = await io.readStdin();
    } catch (err) {
      if (!(err instanceof SkimError)) throw err;
      report(search, err.message, false);
      return;
    }
    await searchBuffer(search, buf, opts.label ?? STDIN_NAME, false);
    return;
  }
  const abs = path.resolve(opts.cwd ?? process.cwd(), op);
  let st;
  try {
    st = await fs.stat(abs);
  } catch (err) {
    report(search, `${op}: ${describe(err)}`);
    return;
  }
  if (st.isDirectory()) {
    const dirs = opts.directories ?? 'recurse';
    if (dirs === 'skip') return;
    if (dirs === 'read') {
      report(search, `${op}: Is a directory`, false);
      return;
    }
    if (!(opts.implicitDot && op === '.') && dirExcluded(search, op, true)) return; // (grep -r with no operand: "." is not named)
    if ((opts.filenames ?? 'auto') === 'auto') search.showNames = true;
    await walk(search, abs, opts.implicitDot && op === '.' ? '' : op);
  } else {
    if (!fileAllowed(search, op, true)) return;
    await searchFile(search, abs, op);
  }
}

/** Walk a directory: `name` is how its path is printed ("" for the implicit "."). */
async function walk(search: Search, abs: string, name: string): Promise<void> {
  const { opts, io } = search;
  const shown = (rel: string) => (rel === '' ? name || '.' : name === '' ? rel : `${name.endsWith('/') ? name.slice(0, -1) : name}/${rel}`);
  const files = walkFiles(abs, {
    links: opts.dereference ? 'follow' : 'skip', // grep -r follows only the links named on the command line
    skipDir: (dir) => dirExcluded(search, dir, false),
    onError: (rel, err) => report(search, `${shown(rel)}: ${describe(err)}`),
    onLoop: (rel) => {
      if (!opts.noMessages) io.message(`warning: ${shown(rel)}: recursive directory loop`);
    },
  });
  for await (const f of files) {
    if (search.stop) return;
    if (!fileAllowed(search, f.name, false)) continue;
    if (search.globMatch && !search.globMatch(f.rel)) continue;
    await searchFile(search, f.abs, shown(f.rel));
  }
}

async function searchFile(search: Search, abs: string, name: string): Promise<void> {
  let buf: Buffer;
  try {
    buf = await readRegularFile(abs, MAX_INPUT_BYTES, name);
  } catch (err) {
    if (!(err instanceof SkimError)) throw err;
    // A missing or unreadable file in grep's words; a FIFO, a device or a huge file in skim's.
    const why =
      err.code === 'ENOINPUT'
        ? await fs.access(abs, fsConstants.R_OK).then(
            () => null,
            (e: unknown) => e,
          )
        : null;
    report(search, why ? `${name}: ${describe(why)}` : err.message);
    return;
  }
  await searchBuffer(search, buf, name, true);
}

/**
 * One file's scan: its lines and GNU grep's printing state for it. `next` is the line after the
 * last one printed (grep's `lastout`), `pending` the trailing context still owed, `outleft` what
 * -m still allows.
 */
interface FileScan extends Lines {
  search: Search;
  /** How the file is printed. */
  name: string;
  /** Its printed lines go to io.shown (not standard input's). */
  recordable: boolean;
  /** Per line: 0 not tested yet, 1 selected, 2 not selected. */
  selection: Uint8Array;
  count: number;
  out: string;
  next: number;
  printedAny: boolean;
  pending: number;
  outleft: number;
  /** The line after the last selected line printed. */
  runEnd: number;
  /** "binary file matches" to report. */
  binaryMatch: boolean;
}

/** Search one file's bytes; `name` is how it is printed. */
async function searchBuffer(search: Search, buf: Buffer, name: string, recordable: boolean): Promise<void> {
  const { opts, io, mode, binaryMode } = search;
  const hasNul = binaryMode !== 'text' && isBinary(buf);
  if (hasNul && binaryMode === 'without-match') {
    if (mode === 'count') await io.write(search.showNames ? `${name}${nameSep(search, ':')}0\n` : '0\n');
    else if (mode === 'files-without-match') await io.write(`${name}${opts.nullAfterName ? '\0' : '\n'}`);
    return;
  }
  const quietBinary = hasNul && mode === 'lines';
  const split = splitLines(buf, hasNul, Boolean(opts.byteOffset) && mode === 'lines');
  const scan: FileScan = {
    search,
    name,
    recordable,
    ...split,
    selection: new Uint8Array(split.lines.length),
    count: 0,
    out: '',
    next: 0,
    printedAny: false,
    pending: 0,
    outleft: search.maxCount,
    runEnd: -1,
    binaryMatch: false,
  };
  scanLines(scan, quietBinary);
  if (mode === 'lines' && !quietBinary && !search.stop) printPending(scan, scan.lines.length);

  let out = scan.out;
  if (mode === 'count') out += search.showNames ? `${name}${nameSep(search, ':')}${scan.count}\n` : `${scan.count}\n`;
  else if (mode === 'files-with-matches' && scan.count > 0) out += `${name}${opts.nullAfterName ? '\0' : '\n'}`;
  else if (mode === 'files-without-match' && scan.count === 0) out += `${name}${opts.nullAfterName ? '\0' : '\n'}`;
  if (out) await io.write(out);
  if (scan.binaryMatch && mode === 'lines') io.message(`${name}: binary file matches`);
}

function selected(scan: FileScan, i: number): boolean {
  const { selection } = scan;
  if (selection[i] === 0) selection[i] = scan.search.opts.matcher.test(scan.matchLines[i]) !== scan.search.invert ? 1 : 2;
  return selection[i] === 1;
}

/** The selected lines in order, each with its leading context, until -m, -q, -l/-L or the cap stops the file. */
function scanLines(scan: FileScan, quietBinary: boolean): void {
  const { search } = scan;
  const { outcome, mode } = search;
  let fileStopped = false;
  for (let i = 0; i < scan.lines.length && !fileStopped && scan.outleft > 0; i++) {
    if (!selected(scan, i)) continue;
    scan.count++;
    outcome.selected = true;
    outcome.selectedLines++;
    if (outcome.selectedLines >= search.maxTotal) {
      outcome.truncated = true;
      search.stop = true;
      fileStopped = true;
    }
    if (mode === 'quiet') {
      search.stop = true;
      break;
    }
    if (mode === 'files-with-matches' || mode === 'files-without-match') break;
    if (mode === 'count') {
      scan.outleft--;
      continue;
    }
    if (quietBinary) {
      scan.binaryMatch = true;
      search.used = true;
      break;
    }
    // With -v, grep prints a run of selected lines as one group: no separator or leading context
    // inside it, even where a line of it could not be printed.
    const inRun = search.invert && scan.runEnd === i;
    if (!inRun) {
      printPending(scan, i);
      const from = Math.max(scan.next, i - search.before);
      if (search.contextGiven && search.used && (!scan.printedAny || from !== scan.next) && search.separator !== null) scan.out += `${search.separator}\n`;
      for (let j = from; j < i; j++) printLine(scan, j, '-');
    }
    printLine(scan, i, ':');
    scan.runEnd = i + 1;
    scan.pending = search.after;
    search.used = true;
    scan.outleft--;
  }
}

/** Trailing context up to line `limit`: after -m's last line, whatever those lines hold. */
function printPending(scan: FileScan, limit: number): void {
  for (; scan.pending > 0 && scan.next < limit; scan.pending--) {
    if (scan.outleft > 0 && selected(scan, scan.next)) {
      scan.pending = 0;
      break;
    }
    printLine(scan, scan.next, '-');
  }
}

/** A line's prefix: its file name, line number and byte offset, as asked for. */
function lineHead(scan: FileScan, i: number, sep: string, byteOffset: number | null): string {
  const { search } = scan;
  return (
    (search.showNames ? scan.name + nameSep(search, sep) : '') +
    (search.opts.lineNumber ? `${i + 1}${sep}` : '') +
    (byteOffset !== null ? `${byteOffset}${sep}` : '')
  );
}

/**
 * Print line i with separator sep (':' selected, '-' context). A line that is not valid UTF-8
 * is not printed (grep reports "binary file matches" at the end) and `next` stays where it is.
 */
function printLine(scan: FileScan, i: number, sep: ':' | '-'): void {
  const { search, lines, bad, offsets } = scan;
  const line = lines[i];
  const textOnly = search.binaryMode !== 'text';
  if (search.opts.onlyMatching) {
    if ((sep === ':') !== search.invert) {
      const msep = search.invert ? '-' : ':';
      for (const [s, e] of search.opts.matcher.matches(scan.matchLines[i])) {
        const text = line.slice(s, e);
        if (bad?.[i] && textOnly && text.includes('\uFFFD')) {
          scan.binaryMatch = true;
          return;
        }
        const inLine = scan.byteAt?.get(i)?.[s] ?? Buffer.byteLength(line.slice(0, s));
        const off = offsets ? offsets[i] + inLine : null;
        scan.out += `${lineHead(scan, i, msep, off)}${text}\n`;
      }
    }
  } else {
    if (bad?.[i] && textOnly) {
      scan.binaryMatch = true;
      return;
    }
    scan.out += `${lineHead(scan, i, sep, offsets ? offsets[i] : null)}${line}\n`;
    if (scan.recordable && search.io.shown) search.io.shown(scan.name, i + 1, line);
  }
  scan.next = i + 1;
  scan.printedAny = true;
}
