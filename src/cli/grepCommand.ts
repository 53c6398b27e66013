/**
 * `skim grep`: GNU grep's command line (options parsed as getopt_long does: bundled short options,
 * `-A3`, `-5`, `--include=GLOB`, abbreviated long options, options after operands, `--`), its
 * output and exit status (0 selected lines, 1 none, 2 trouble), plus skim's pruning options.
 * Without --focus/--ratio/--tokens the output is GNU grep's; with them it is printed as `grep -Hn`
 * would print it and pruned for the question. Independent of commander and of process globals
 * (everything comes through GrepCommandIO), so tests run it in-process.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { SkimError } from '../core/errors.js';
import { FIELD_RULES } from '../core/request.js';
import { type GrepOutputMode, type GrepSearchOptions, runGrepSearch } from '../tools/grepSearch.js';
import type { GrepDialect } from '../tools/grepSyntax.js';
import { compileGrepMatcher } from '../tools/linePattern.js';
import { VERSION } from '../version.js';
import { numberOption } from './io.js';

export interface GrepCommandIO {
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
  readStdin(): Promise<Buffer>;
  /** Standard input is a pipe, a file or a socket (not a terminal, not /dev/null). */
  stdinIsReadable(): boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

const USAGE = 'Usage: skim grep [OPTION]... PATTERNS [FILE]...';

export const GREP_HELP = `${USAGE}
Search for PATTERNS in each FILE, as GNU grep does, in-process (no grep binary, no shell), matched
in linear time (patterns are translated to RE2). A directory is searched recursively, as with -r;
with no FILE, standard input is read when it is a pipe or a file, else "." is searched.
Output and exit status are GNU grep's (0: a line was selected, 1: none, 2: trouble); with --focus
(or --ratio/--tokens) the lines are printed as \`grep -Hn\` prints them and pruned to the question.

Pattern syntax:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions (the default)
  -P, --perl-regexp         PATTERNS are Perl regular expressions (RE2 subset: no lookahead,
                            back-references, atomic groups or possessive quantifiers)
  -e, --regexp=PATTERNS     use PATTERNS for matching (repeatable)
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions (-y is the same; --no-ignore-case undoes it)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  Back-references (\\1) are refused: no linear-time matcher can do them.

Miscellaneous:
  -s, --no-messages         suppress error messages about missing or unreadable files
  -v, --invert-match        select non-matching lines
  -V, --version             print version information and exit
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop reading a file after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   binary (default: "binary file matches" on stderr), text, or
                            without-match; -a is --binary-files=text, -I without-match
  -r, --recursive           search directories recursively (always done)
  -R, --dereference-recursive  likewise, following all symlinks
  -d, --directories=ACTION  recurse (default), skip, or read (a directory is an error)
      --include=GLOB        search only files whose base name matches GLOB
      --exclude=GLOB        skip files whose base name matches GLOB
      --exclude-from=FILE   skip files whose base name matches any glob in FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN]        accepted; output is never colored
  -U, --binary, --line-buffered  accepted (no effect)

skim:
      --focus=QUESTION      goal hint: prune the output to the lines that answer it
  -g, --glob=GLOB           only files whose path below the searched directory matches GLOB
                            (e.g. "*.py", "src/**/*.ts")
      --ratio=N             budget: at most 1/N of the tokens (implies pruning)
  -t, --tokens=N            budget: at most N tokens (implies pruning)
      --session=ID          session memory (default: $SKIM_SESSION)
      --task=TEXT           the run's overall task, scored next to --focus (default: $SKIM_TASK)
      --scorer=NAME         learned (default) or heuristic
      --model=DIR           model weights directory

Not supported: -T (--initial-tab), -z (--null-data), -D (--devices).
Directories named ${['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv', '.tox', '.mypy_cache'].join(', ')} are skipped
when met in a walk (name one to search it). The walk is in sorted order.
`;

type ArgKind = 'none' | 'required' | 'optional';

/** Long options: name -> [key, argument]. Keys of short options are the letters themselves. */
const LONG: Record<string, [string, ArgKind]> = {
  'extended-regexp': ['E', 'none'],
  'fixed-strings': ['F', 'none'],
  'basic-regexp': ['G', 'none'],
  'perl-regexp': ['P', 'none'],
  regexp: ['e', 'required'],
  file: ['f', 'required'],
  'ignore-case': ['i', 'none'],
  'no-ignore-case': ['no-ignore-case', 'none'],
  'word-regexp': ['w', 'none'],
  'line-regexp': ['x', 'none'],
  'no-messages': ['s', 'none'],
  'invert-match': ['v', 'none'],
  version: ['V', 'none'],
  help: ['help', 'none'],
  'max-count': ['m', 'required'],
  'byte-offset': ['b', 'none'],
  'line-number': ['n', 'none'],
  'line-buffered': ['line-buffered', 'none'],
  'with-filename': ['H', 'none'],
  'no-filename': ['h', 'none'],
  label: ['label', 'required'],
  'only-matching': ['o', 'none'],
  quiet: ['q', 'none'],
  silent: ['q', 'none'],
  'binary-files': ['binary-files', 'required'],
  text: ['a', 'none'],
  directories: ['d', 'required'],
  devices: ['D', 'required'],
  recursive: ['r', 'none'],
  'dereference-recursive': ['R', 'none'],
  include: ['include', 'required'],
  exclude: ['exclude', 'required'],
  'exclude-from': ['exclude-from', 'required'],
  'exclude-dir': ['exclude-dir', 'required'],
  'files-without-match': ['L', 'none'],
  'files-with-matches': ['l', 'none'],
  count: ['c', 'none'],
  'initial-tab': ['T', 'none'],
  null: ['Z', 'none'],
  'null-data': ['z', 'none'],
  'after-context': ['A', 'required'],
  'before-context': ['B', 'required'],
  context: ['C', 'required'],
  color: ['color', 'optional'],
  colour: ['color', 'optional'],
  binary: ['U', 'none'],
  'group-separator': ['group-separator', 'required'],
  'no-group-separator': ['no-group-separator', 'none'],
  // skim's own
  focus: ['focus', 'required'],
  glob: ['g', 'required'],
  ratio: ['ratio', 'required'],
  tokens: ['t', 'required'],
  session: ['session', 'required'],
  task: ['task', 'required'],
  scorer: ['scorer', 'required'],
  model: ['model', 'required'],
};
const SHORT_NOARG = new Set(Array.from('EFGPiywxsvVbnHhoqaIrRLlcTZzU'));
const SHORT_ARG = new Set(Array.from('efmdDABCgt'));

/** A bad command line (a SkimError 'EUSAGE'; grep exits 2 for it); `usage`: getopt's kind of error, followed by the usage lines (as grep does). */
class UsageError extends SkimError {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message, 'EUSAGE');
  }
}

export interface ParsedGrepArgs {
  help?: boolean;
  version?: boolean;
  dialect: GrepDialect;
  /** -e values and -f files, in order; undefined: the first operand is the pattern. */
  patternSources: Array<{ kind: 'e' | 'f'; value: string }>;
  operands: string[];
  ignoreCase: boolean;
  wordRegexp: boolean;
  lineRegexp: boolean;
  invert: boolean;
  noMessages: boolean;
  mode: GrepOutputMode;
  onlyMatching: boolean;
  lineNumber: boolean;
  byteOffset: boolean;
  filenames: 'auto' | 'always' | 'never';
  nullAfterName: boolean;
  label?: string;
  maxCount?: number;
  before?: number;
  after?: number;
  context?: number;
  groupSeparator?: string | null;
  recursive: boolean;
  dereference: boolean;
  directories?: 'recurse' | 'skip' | 'read';
  binaryFiles: 'binary' | 'text' | 'without-match';
  fileFilters: Array<{ include: boolean; glob: string }>;
  excludeFrom: string[];
  excludeDirs: string[];
  // skim
  focus?: string;
  glob?: string;
  ratio?: number;
  tokens?: number;
  session?: string;
  task?: string;
  scorer?: string;
  model?: string;
}

function nonNegativeInt(v: string, what: string): number {
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`${v}: ${what}`);
  return Number(v.trim());
}

/** A value of one of skim's own options, by the CLI's numeric parser; its complaint in grep's words. */
function skimNumber(value: string, option: string, rule: z.ZodType<number>): number {
  try {
    return numberOption(rule)(value);
  } catch (err) {
    throw new UsageError(`${value}: ${option} ${(err as Error).message}`);
  }
}

/** Parse grep's arguments the way getopt_long does (permuting: operands may come first). */
export function parseGrepArgs(args: string[]): ParsedGrepArgs {
  const o: ParsedGrepArgs = {
    dialect: 'basic',
    patternSources: [],
    operands: [],
    ignoreCase: false,
    wordRegexp: false,
    lineRegexp: false,
    invert: false,
    noMessages: false,
    mode: 'lines',
    onlyMatching: false,
    lineNumber: false,
    byteOffset: false,
    filenames: 'auto',
    nullAfterName: false,
    recursive: false,
    dereference: false,
    binaryFiles: 'binary',
    fileFilters: [],
    excludeFrom: [],
    excludeDirs: [],
  };
  let matcherFlag: string | undefined;
  let listMode: 'l' | 'L' | undefined;
  let count = false;
  let quiet = false;
  let digits = '';

  const apply = (key: string, value: string | undefined) => {
    switch (key) {
      case 'E':
      case 'F':
      case 'G':
      case 'P': {
        if (matcherFlag !== undefined && matcherFlag !== key) throw new UsageError('conflicting matchers specified');
        matcherFlag = key;
        o.dialect = ({ E: 'extended', F: 'fixed', G: 'basic', P: 'perl' } as const)[key];
        return;
      }
      case 'e':
      case 'f':
        o.patternSources.push({ kind: key, value: value! });
        return;
      case 'i':
      case 'y':
        o.ignoreCase = true;
        return;
      case 'no-ignore-case':
        o.ignoreCase = false;
        return;
      case 'w':
        o.wordRegexp = true;
        return;
      case 'x':
        o.lineRegexp = true;
        return;
      case 's':
        o.noMessages = true;
        return;
      case 'v':
        o.invert = true;
        return;
      case 'V':
        o.version = true;
        return;
      case 'help':
        o.help = true;
        return;
      case 'm':
        o.maxCount = nonNegativeInt(value!, 'invalid max count');
        return;
      case 'b':
        o.byteOffset = true;
        return;
      case 'n':
        o.lineNumber = true;
        return;
      case 'H':
        o.filenames = 'always';
        return;
      case 'h':
        o.filenames = 'never';
        return;
      case 'label':
        o.label = value;
        return;
      case 'o':
        o.onlyMatching = true;
        return;
      case 'q':
        quiet = true;
        return;
      case 'binary-files':
        if (value !== 'binary' && value !== 'text' && value !== 'without-match') throw new UsageError('unknown binary-files type');
        o.binaryFiles = value;
        return;
      case 'a':
        o.binaryFiles = 'text';
        return;
      case 'I':
        o.binaryFiles = 'without-match';
        return;
      case 'd':
        if (value !== 'read' && value !== 'recurse' && value !== 'skip') throw new UsageError(`invalid argument '${value}' for '--directories'`);
        o.directories = value;
        return;
      case 'r':
        o.recursive = true;
        o.directories = 'recurse';
        return;
      case 'R':
        o.recursive = true;
        o.dereference = true;
        o.directories = 'recurse';
        return;
      case 'include':
      case 'exclude':
        o.fileFilters.push({ include: key === 'include', glob: value! });
        return;
      case 'exclude-from':
        o.excludeFrom.push(value!);
        return;
      case 'exclude-dir':
        o.excludeDirs.push(value!);
        return;
      case 'L':
      case 'l':
        listMode = key;
        return;
      case 'c':
        count = true;
        return;
      case 'Z':
        o.nullAfterName = true;
        return;
      case 'A':
        o.after = nonNegativeInt(value!, 'invalid context length argument');
        return;
      case 'B':
        o.before = nonNegativeInt(value!, 'invalid context length argument');
        return;
      case 'C':
        o.context = nonNegativeInt(value!, 'invalid context length argument');
        return;
      case 'group-separator':
        o.groupSeparator = value;
        return;
      case 'no-group-separator':
        o.groupSeparator = null;
        return;
      case 'color':
      case 'U':
      case 'line-buffered':
        return;
      case 'T':
      case 'z':
      case 'D':
        throw new UsageError(`option ${key.length === 1 ? `-${key}` : `--${key}`} is not supported by skim grep`);
      case 'focus':
        o.focus = value;
        return;
      case 'g':
        o.glob = value;
        return;
      case 'ratio':
        o.ratio = skimNumber(value!, '--ratio', FIELD_RULES.ratio);
        return;
      case 't':
        o.tokens = skimNumber(value!, '--tokens', FIELD_RULES.count);
        return;
      case 'session':
        o.session = value;
        return;
      case 'task':
        o.task = value;
        return;
      case 'scorer':
        o.scorer = value;
        return;
      case 'model':
        o.model = value;
        return;
      default:
        throw new UsageError(`invalid option -- '${key}'`);
    }
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      o.operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      let entry = LONG[name];
      let full = name;
      if (!entry) {
        const candidates = Object.keys(LONG).filter((k) => k.startsWith(name));
        const keys = new Set(candidates.map((k) => LONG[k][0]));
        if (candidates.length === 0) throw new UsageError(`unrecognized option '--${name}'`, true);
        if (keys.size > 1) throw new UsageError(`option '--${name}' is ambiguous; possibilities: ${candidates.map((k) => `'--${k}'`).join(' ')}`, true);
        full = candidates[0];
        entry = LONG[full];
      }
      const [key, kind] = entry;
      let value: string | undefined;
      if (eq >= 0) {
        if (kind === 'none') throw new UsageError(`option '--${full}' doesn't allow an argument`, true);
        value = arg.slice(eq + 1);
      } else if (kind === 'required') {
        if (i + 1 >= args.length) throw new UsageError(`option '--${full}' requires an argument`, true);
        value = args[++i];
      }
      apply(key, value);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      digits = '';
      for (let k = 1; k < arg.length; k++) {
        const c = arg[k];
        if (c >= '0' && c <= '9') {
          digits += c; // -NUM: context, digits of one argument make one number
          o.context = Number(digits);
          continue;
        }
        if (SHORT_ARG.has(c)) {
          let value = arg.slice(k + 1);
          if (value === '') {
            if (i + 1 >= args.length) throw new UsageError(`option requires an argument -- '${c}'`, true);
            value = args[++i];
          }
          apply(c, value);
          break;
        }
        if (!SHORT_NOARG.has(c)) throw new UsageError(`invalid option -- '${c}'`, true);
        apply(c, undefined);
      }
      continue;
    }
    o.operands.push(arg);
  }
  if (quiet) o.mode = 'quiet';
  else if (listMode) o.mode = listMode === 'l' ? 'files-with-matches' : 'files-without-match';
  else if (count) o.mode = 'count';
  return o;
}

/** Patterns of -e values and -f files (newlines separate patterns), or of the first operand. */
async function collectPatterns(p: ParsedGrepArgs, io: GrepCommandIO): Promise<string[] | null> {
  if (p.patternSources.length === 0) {
    if (p.operands.length === 0) return null;
    return p.operands.shift()!.split('\n');
  }
  const patterns: string[] = [];
  for (const src of p.patternSources) {
    if (src.kind === 'e') patterns.push(...src.value.split('\n'));
    else {
      const text = src.value === '-' ? (await io.readStdin()).toString('utf8') : await readFile(path.resolve(io.cwd ?? process.cwd(), src.value), 'utf8');
      if (text === '') continue;
      const lines = text.split('\n');
      if (text.endsWith('\n')) lines.pop();
      patterns.push(...lines);
    }
  }
  return patterns;
}

/** Run `skim grep ARGS`; the exit status as grep's. */
export async function runGrepCommand(args: string[], io: GrepCommandIO): Promise<number> {
  const err = (msg: string) => io.stderr(`skim grep: ${msg}\n`);
  let p: ParsedGrepArgs;
  try {
    p = parseGrepArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(e.message);
    if (e.usage) io.stderr(`${USAGE}\nTry 'skim grep --help' for more information.\n`);
    return 2;
  }
  if (p.help) {
    await io.stdout(GREP_HELP);
    return 0;
  }
  if (p.version) {
    await io.stdout(`skim grep ${VERSION} (GNU grep compatible; patterns matched by RE2)\n`);
    return 0;
  }
  let patterns: string[] | null;
  try {
    patterns = await collectPatterns(p, io);
    for (const file of p.excludeFrom) {
      const text = await readFile(path.resolve(io.cwd ?? process.cwd(), file), 'utf8');
      for (const g of text.split('\n')) if (g !== '') p.fileFilters.push({ include: false, glob: g });
    }
  } catch (e) {
    if (e instanceof SkimError) {
      err(e.message);
      return 2;
    }
    const code = (e as NodeJS.ErrnoException).code;
    if (!code) throw e;
    err(`${(e as NodeJS.ErrnoException).path ?? ''}: ${code === 'ENOENT' ? 'No such file or directory' : (e as Error).message}`);
    return 2;
  }
  if (patterns === null) {
    io.stderr(`${USAGE}\nTry 'skim grep --help' for more information.\n`);
    return 2;
  }
  if (p.maxCount === 0) return 1; // grep -m 0 reads nothing

  const pruning = p.focus !== undefined || p.ratio !== undefined || p.tokens !== undefined;
  const prunedLines = pruning && p.mode === 'lines';
  let matcher;
  try {
    matcher = compileGrepMatcher(patterns, {
      dialect: p.dialect,
      ignoreCase: p.ignoreCase,
      wordRegexp: p.wordRegexp,
      lineRegexp: p.lineRegexp,
      onlyMatching: p.onlyMatching,
    });
  } catch (e) {
    if (!(e instanceof SkimError)) throw e;
    err(e.message);
    return 2;
  }

  let operands = p.operands;
  let implicitDot = false;
  if (operands.length === 0) {
    if (!p.recursive && p.directories === undefined && io.stdinIsReadable()) operands = ['-'];
    else {
      operands = ['.'];
      implicitDot = true;
    }
  }
  const searchOpts: GrepSearchOptions = {
    matcher,
    invert: p.invert,
    mode: p.mode,
    onlyMatching: p.onlyMatching,
    lineNumber: p.lineNumber || prunedLines,
    byteOffset: p.byteOffset && !prunedLines,
    filenames: prunedLines ? 'always' : p.filenames,
    nullAfterName: p.nullAfterName && !prunedLines,
    before: p.before ?? p.context,
    after: p.after ?? p.context,
    groupSeparator: p.groupSeparator,
    maxCount: p.maxCount,
    directories: p.directories ?? 'recurse',
    dereference: p.dereference,
    binaryFiles: p.binaryFiles,
    fileFilters: p.fileFilters,
    excludeDirs: p.excludeDirs,
    glob: p.glob,
    noMessages: p.noMessages,
    label: p.label,
    cwd: io.cwd,
    implicitDot,
    maxTotal: prunedLines ? MAX_PRUNED_MATCHES : undefined,
  };
  const env = io.env ?? process.env;
  const sessionId = p.session ?? env.SKIM_SESSION;
  const wantsSession = sessionId !== undefined && sessionId.trim() !== '';
  const message = (text: string) => io.stderr(`skim grep: ${text}\n`);

  if (!prunedLines && !wantsSession) {
    const outcome = await runGrepSearch(operands, searchOpts, { write: io.stdout, message, readStdin: io.readStdin });
    return exitStatus(outcome.selected, outcome.errors, p.mode);
  }

  // Session memory and pruning load the model and the session store: only when asked for.
  const { withSession, taskOf, outputLimitOf } = await import('./session.js');
  const outputLimit = outputLimitOf(env);
  return withSession({ session: sessionId, task: p.task }, async (session) => {
    let text = '';
    const shown: Array<[string, number, string]> = [];
    const outcome = await runGrepSearch(operands, searchOpts, {
      write: prunedLines ? (t) => void (text += t) : io.stdout,
      message,
      readStdin: io.readStdin,
      // (under a harness output limit, streamed lines are not remembered: which of them it shows is not known here)
      shown: session && !prunedLines && !outputLimit ? (file, lineNo, line) => void shown.push([file, lineNo, line]) : undefined,
    });
    if (session) {
      const byFile = new Map<string, [number, string][]>();
      for (const [file, lineNo, line] of shown) byFile.set(file, [...(byFile.get(file) ?? []), [lineNo, line]]);
      for (const [file, lines] of byFile) session.recordLines(file, lines);
    }
    if (outcome.truncated) io.stderr(`skim: warning: stopped after ${outcome.selectedLines} matching lines\n`);
    if (prunedLines && text !== '') {
      const { prunerFor } = await import('./io.js');
      const pruner = prunerFor({ scorer: p.scorer, model: p.model });
      const result = await pruner.prune({
        code: text,
        query: p.focus,
        task: taskOf({ task: p.task }),
        ratio: p.ratio,
        tokens: p.tokens,
        outputLimit,
        session,
      });
      for (const d of result.diagnostics) if (d.code !== 'no-query') io.stderr(`skim: warning: ${d.message}\n`);
      await io.stdout(result.text);
    }
    return exitStatus(outcome.selected, outcome.errors, p.mode);
  });
}

/** When the output is pruned, the search stops after this many matching lines. */
const MAX_PRUNED_MATCHES = 5000;

function exitStatus(selected: boolean, errors: boolean, mode: GrepOutputMode): number {
  if (errors && !(mode === 'quiet' && selected)) return 2;
  return selected ? 0 : 1;
}
