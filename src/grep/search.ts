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

/** Search the operands (files, directories, "-") and print what grep would print. */
export async function runGrepSearch(operands: string[], opts: GrepSearchOptions, io: GrepIO): Promise<GrepOutcome> {
  const mode = opts.mode ?? 'lines';
  const invert = Boolean(opts.invert);
  const cwd = opts.cwd ?? process.cwd();
  const nameMode = opts.filenames ?? 'auto';
  let showNames = nameMode === 'always' || (nameMode === 'auto' && operands.length > 1);
  const contextGiven = opts.before !== undefined || opts.after !== undefined;
  const before = Math.max(0, opts.before ?? 0);
  const after = Math.max(0, opts.after ?? 0);
  const separator = opts.groupSeparator === undefined ? '--' : opts.groupSeparator;
  const maxCount = opts.maxCount ?? Infinity;
  const maxTotal = opts.maxTotal ?? Infinity;
  const binaryMode = opts.binaryFiles ?? 'binary';
  const filters = (opts.fileFilters ?? []).map((f) => ({ include: f.include, match: fnmatcher(f.glob) }));
  const excludeDirs = (opts.excludeDirs ?? []).map(fnmatcher);
  const globMatch = opts.glob ? picomatch(opts.glob, { dot: true, basename: !opts.glob.includes('/') }) : null;
  const outcome: GrepOutcome = { selected: false, errors: false, selectedLines: 0, truncated: false };
  let used = false; // something was printed: a later group gets a separator (grep's static `used`)
  let stop = false; // -q after a match, or the maxTotal cap

  const report = (text: string, missing = true) => {
    outcome.errors = true;
    if (!(missing && opts.noMessages)) io.message(text);
  };

  /** --include/--exclude: the last one that matches wins; none matching: excluded only if the first is --include. */
  const fileAllowed = (name: string, commandLine: boolean): boolean => {
    if (filters.length === 0) return true;
    for (let k = filters.length - 1; k >= 0; k--) {
      const f = filters[k];
      if (commandLine ? suffixMatch(f.match, name) : f.match(name)) return f.include;
    }
    return !filters[0].include;
  };
  const dirExcluded = (name: string, commandLine: boolean) => excludeDirs.some((m) => (commandLine ? suffixMatch(m, name) : m(name)));

  const nameSep = (sep: string) => (opts.nullAfterName ? '\0' : sep);

  /** Search one file's bytes; `name` is how it is printed. */
  const searchBuffer = async (buf: Buffer, name: string, recordable: boolean): Promise<void> => {
    const hasNul = binaryMode !== 'text' && isBinary(buf);
    if (hasNul && binaryMode === 'without-match') {
      if (mode === 'count') await io.write(showNames ? `${name}${nameSep(':')}0\n` : '0\n');
      else if (mode === 'files-without-match') await io.write(`${name}${opts.nullAfterName ? '\0' : '\n'}`);
      return;
    }
    const quietBinary = hasNul && mode === 'lines';
    const { lines, matchLines, bad, offsets, byteAt } = splitLines(buf, hasNul, Boolean(opts.byteOffset) && mode === 'lines');
    const n = lines.length;
    const m = opts.matcher;
    // Per line: 0 not tested yet, 1 selected, 2 not selected.
    const selection = new Uint8Array(n);
    const selected = (i: number) => {
      if (selection[i] === 0) selection[i] = m.test(matchLines[i]) !== invert ? 1 : 2;
      return selection[i] === 1;
    };
    let count = 0;
    let out = '';
    // GNU grep's printing state, per file: `next` is the line after the last one printed (its
    // `lastout`), `pending` the trailing context still owed, `outleft` what -m still allows.
    let next = 0;
    let printedAny = false;
    let pending = 0;
    let outleft = maxCount;
    let runEnd = -1; // the line after the last selected line printed
    let binaryMatch = false; // "binary file matches" to report
    let fileStopped = false;

    const head = (i: number, sep: string, byteOffset: number | null) =>
      (showNames ? name + nameSep(sep) : '') + (opts.lineNumber ? `${i + 1}${sep}` : '') + (byteOffset !== null ? `${byteOffset}${sep}` : '');
    /**
     * Print line i with separator sep (':' selected, '-' context). A line that is not valid UTF-8
     * is not printed (grep reports "binary file matches" at the end) and `next` stays where it is.
     */
    const printLine = (i: number, sep: ':' | '-'): void => {
      const line = lines[i];
      if (opts.onlyMatching) {
        if ((sep === ':') !== invert) {
          const msep = invert ? '-' : ':';
          for (const [s, e] of m.matches(matchLines[i])) {
            const text = line.slice(s, e);
            if (bad?.[i] && binaryMode !== 'text' && text.includes('\uFFFD')) {
              binaryMatch = true;
              return;
            }
            const inLine = byteAt?.get(i)?.[s] ?? Buffer.byteLength(line.slice(0, s));
            const off = offsets ? offsets[i] + inLine : null;
            out += `${head(i, msep, off)}${text}\n`;
          }
        }
      } else {
        if (bad?.[i] && binaryMode !== 'text') {
          binaryMatch = true;
          return;
        }
        out += `${head(i, sep, offsets ? offsets[i] : null)}${line}\n`;
        if (recordable && io.shown) io.shown(name, i + 1, line);
      }
      next = i + 1;
      printedAny = true;
    };
    /** Trailing context up to line `limit`: after -m's last line, whatever those lines hold. */
    const printPending = (limit: number) => {
      for (; pending > 0 && next < limit; pending--) {
        if (outleft > 0 && selected(next)) {
          pending = 0;
          break;
        }
        printLine(next, '-');
      }
    };

    for (let i = 0; i < n && !fileStopped && outleft > 0; i++) {
      if (!selected(i)) continue;
      count++;
      outcome.selected = true;
      outcome.selectedLines++;
      if (outcome.selectedLines >= maxTotal) {
        outcome.truncated = true;
        stop = true;
        fileStopped = true;
      }
      if (mode === 'quiet') {
        stop = true;
        break;
      }
      if (mode === 'files-with-matches' || mode === 'files-without-match') break;
      if (mode === 'count') {
        outleft--;
        continue;
      }
      if (quietBinary) {
        binaryMatch = true;
        used = true;
        break;
      }
      // With -v, grep prints a run of selected lines as one group: no separator or leading context
      // inside it, even where a line of it could not be printed.
      const inRun = invert && runEnd === i;
      if (!inRun) {
        printPending(i);
        const from = Math.max(next, i - before);
        if (contextGiven && used && (!printedAny || from !== next) && separator !== null) out += `${separator}\n`;
        for (let j = from; j < i; j++) printLine(j, '-');
      }
      printLine(i, ':');
      runEnd = i + 1;
      pending = after;
      used = true;
      outleft--;
    }
    if (mode === 'lines' && !quietBinary && !stop) printPending(n);

    if (mode === 'count') out += showNames ? `${name}${nameSep(':')}${count}\n` : `${count}\n`;
    else if (mode === 'files-with-matches' && count > 0) out += `${name}${opts.nullAfterName ? '\0' : '\n'}`;
    else if (mode === 'files-without-match' && count === 0) out += `${name}${opts.nullAfterName ? '\0' : '\n'}`;
    if (out) await io.write(out);
    if (binaryMatch && mode === 'lines') io.message(`${name}: binary file matches`);
  };

  const searchFile = async (abs: string, name: string) => {
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
      report(why ? `${name}: ${describe(why)}` : err.message);
      return;
    }
    await searchBuffer(buf, name, true);
  };

  /** Walk a directory: `name` is how its path is printed ("" for the implicit "."). */
  const walk = async (abs: string, name: string): Promise<void> => {
    const shown = (rel: string) => (rel === '' ? name || '.' : name === '' ? rel : `${name.endsWith('/') ? name.slice(0, -1) : name}/${rel}`);
    const files = walkFiles(abs, {
      links: opts.dereference ? 'follow' : 'skip', // grep -r follows only the links named on the command line
      skipDir: (dir) => dirExcluded(dir, false),
      onError: (rel, err) => report(`${shown(rel)}: ${describe(err)}`),
      onLoop: (rel) => {
        if (!opts.noMessages) io.message(`warning: ${shown(rel)}: recursive directory loop`);
      },
    });
    for await (const f of files) {
      if (stop) return;
      if (!fileAllowed(f.name, false)) continue;
      if (globMatch && !globMatch(f.rel)) continue;
      await searchFile(f.abs, shown(f.rel));
    }
  };

  for (const op of operands) {
    if (stop) break;
    if (op === '-') {
      let buf: Buffer;
      try {
        buf = await io.readStdin();
      } catch (err) {
        if (!(err instanceof SkimError)) throw err;
        report(err.message, false);
        continue;
      }
      await searchBuffer(buf, opts.label ?? STDIN_NAME, false);
      continue;
    }
    const abs = path.resolve(cwd, op);
    let st;
    try {
      st = await fs.stat(abs);
    } catch (err) {
      report(`${op}: ${describe(err)}`);
      continue;
    }
    if (st.isDirectory()) {
      const dirs = opts.directories ?? 'recurse';
      if (dirs === 'skip') continue;
      if (dirs === 'read') {
        report(`${op}: Is a directory`, false);
        continue;
      }
      if (!(opts.implicitDot && op === '.') && dirExcluded(op, true)) continue; // (grep -r with no operand: "." is not named)
      if (nameMode === 'auto') showNames = true;
      await walk(abs, opts.implicitDot && op === '.' ? '' : op);
    } else {
      if (!fileAllowed(op, true)) continue;
      await searchFile(abs, op);
    }
  }
  return outcome;
}
