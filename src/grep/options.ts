/**
 * `skim grep`'s command line, parsed as getopt_long parses GNU grep's: bundled short options,
 * `-A3`, `-5`, `--include=GLOB`, abbreviated long options, options after operands, `--`. One table
 * (OPTIONS) says of every option its names, whether it takes an argument, and what it sets.
 */
import type { z } from 'zod';
import { numberOption } from '../cli/io.js';
import { SkimError } from '../core/errors.js';
import { FIELD_RULES } from '../core/request.js';
import type { GrepOutputMode } from './search.js';
import type { GrepDialect } from './syntax.js';

export const USAGE = 'Usage: skim grep [OPTION]... PATTERNS [FILE]...';

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

/** The parse so far: the result, and what is decided only once every option is read. */
interface ParseState {
  o: ParsedGrepArgs;
  /** The -E/-F/-G/-P given, to refuse a different one. */
  matcher?: string;
  listMode?: 'l' | 'L';
  count: boolean;
  quiet: boolean;
}

interface OptionSpec {
  arg: ArgKind;
  /** Long names; a key of one letter is also the short option. */
  long?: string[];
  apply(s: ParseState, value: string | undefined): void;
}

const matcher =
  (key: 'E' | 'F' | 'G' | 'P'): OptionSpec['apply'] =>
  (s) => {
    if (s.matcher !== undefined && s.matcher !== key) throw new UsageError('conflicting matchers specified');
    s.matcher = key;
    s.o.dialect = ({ E: 'extended', F: 'fixed', G: 'basic', P: 'perl' } as const)[key];
  };
const unsupported =
  (key: string): OptionSpec['apply'] =>
  () => {
    throw new UsageError(`option ${key.length === 1 ? `-${key}` : `--${key}`} is not supported by skim grep`);
  };
const accepted: OptionSpec['apply'] = () => {};
const contextLength = (v: string | undefined) => nonNegativeInt(v!, 'invalid context length argument');

/**
 * Every option, by key: its letter, or its name when it has no short form. The order of the long
 * names is the order an ambiguous abbreviation lists its possibilities in.
 */
const OPTIONS: Record<string, OptionSpec> = {
  E: { arg: 'none', long: ['extended-regexp'], apply: matcher('E') },
  F: { arg: 'none', long: ['fixed-strings'], apply: matcher('F') },
  G: { arg: 'none', long: ['basic-regexp'], apply: matcher('G') },
  P: { arg: 'none', long: ['perl-regexp'], apply: matcher('P') },
  e: { arg: 'required', long: ['regexp'], apply: (s, v) => s.o.patternSources.push({ kind: 'e', value: v! }) },
  f: { arg: 'required', long: ['file'], apply: (s, v) => s.o.patternSources.push({ kind: 'f', value: v! }) },
  i: { arg: 'none', long: ['ignore-case'], apply: (s) => (s.o.ignoreCase = true) },
  y: { arg: 'none', apply: (s) => (s.o.ignoreCase = true) },
  'no-ignore-case': { arg: 'none', long: ['no-ignore-case'], apply: (s) => (s.o.ignoreCase = false) },
  w: { arg: 'none', long: ['word-regexp'], apply: (s) => (s.o.wordRegexp = true) },
  x: { arg: 'none', long: ['line-regexp'], apply: (s) => (s.o.lineRegexp = true) },
  s: { arg: 'none', long: ['no-messages'], apply: (s) => (s.o.noMessages = true) },
  v: { arg: 'none', long: ['invert-match'], apply: (s) => (s.o.invert = true) },
  V: { arg: 'none', long: ['version'], apply: (s) => (s.o.version = true) },
  help: { arg: 'none', long: ['help'], apply: (s) => (s.o.help = true) },
  m: { arg: 'required', long: ['max-count'], apply: (s, v) => (s.o.maxCount = nonNegativeInt(v!, 'invalid max count')) },
  b: { arg: 'none', long: ['byte-offset'], apply: (s) => (s.o.byteOffset = true) },
  n: { arg: 'none', long: ['line-number'], apply: (s) => (s.o.lineNumber = true) },
  'line-buffered': { arg: 'none', long: ['line-buffered'], apply: accepted },
  H: { arg: 'none', long: ['with-filename'], apply: (s) => (s.o.filenames = 'always') },
  h: { arg: 'none', long: ['no-filename'], apply: (s) => (s.o.filenames = 'never') },
  label: { arg: 'required', long: ['label'], apply: (s, v) => (s.o.label = v) },
  o: { arg: 'none', long: ['only-matching'], apply: (s) => (s.o.onlyMatching = true) },
  q: { arg: 'none', long: ['quiet', 'silent'], apply: (s) => (s.quiet = true) },
  'binary-files': {
    arg: 'required',
    long: ['binary-files'],
    apply: (s, v) => {
      if (v !== 'binary' && v !== 'text' && v !== 'without-match') throw new UsageError('unknown binary-files type');
      s.o.binaryFiles = v;
    },
  },
  a: { arg: 'none', long: ['text'], apply: (s) => (s.o.binaryFiles = 'text') },
  I: { arg: 'none', apply: (s) => (s.o.binaryFiles = 'without-match') },
  d: {
    arg: 'required',
    long: ['directories'],
    apply: (s, v) => {
      if (v !== 'read' && v !== 'recurse' && v !== 'skip') throw new UsageError(`invalid argument '${v}' for '--directories'`);
      s.o.directories = v;
    },
  },
  D: { arg: 'required', long: ['devices'], apply: unsupported('D') },
  r: {
    arg: 'none',
    long: ['recursive'],
    apply: (s) => {
      s.o.recursive = true;
      s.o.directories = 'recurse';
    },
  },
  R: {
    arg: 'none',
    long: ['dereference-recursive'],
    apply: (s) => {
      s.o.recursive = true;
      s.o.dereference = true;
      s.o.directories = 'recurse';
    },
  },
  include: { arg: 'required', long: ['include'], apply: (s, v) => s.o.fileFilters.push({ include: true, glob: v! }) },
  exclude: { arg: 'required', long: ['exclude'], apply: (s, v) => s.o.fileFilters.push({ include: false, glob: v! }) },
  'exclude-from': { arg: 'required', long: ['exclude-from'], apply: (s, v) => s.o.excludeFrom.push(v!) },
  'exclude-dir': { arg: 'required', long: ['exclude-dir'], apply: (s, v) => s.o.excludeDirs.push(v!) },
  L: { arg: 'none', long: ['files-without-match'], apply: (s) => (s.listMode = 'L') },
  l: { arg: 'none', long: ['files-with-matches'], apply: (s) => (s.listMode = 'l') },
  c: { arg: 'none', long: ['count'], apply: (s) => (s.count = true) },
  T: { arg: 'none', long: ['initial-tab'], apply: unsupported('T') },
  Z: { arg: 'none', long: ['null'], apply: (s) => (s.o.nullAfterName = true) },
  z: { arg: 'none', long: ['null-data'], apply: unsupported('z') },
  A: { arg: 'required', long: ['after-context'], apply: (s, v) => (s.o.after = contextLength(v)) },
  B: { arg: 'required', long: ['before-context'], apply: (s, v) => (s.o.before = contextLength(v)) },
  C: { arg: 'required', long: ['context'], apply: (s, v) => (s.o.context = contextLength(v)) },
  color: { arg: 'optional', long: ['color', 'colour'], apply: accepted },
  U: { arg: 'none', long: ['binary'], apply: accepted },
  'group-separator': { arg: 'required', long: ['group-separator'], apply: (s, v) => (s.o.groupSeparator = v) },
  'no-group-separator': { arg: 'none', long: ['no-group-separator'], apply: (s) => (s.o.groupSeparator = null) },
  // skim's own
  focus: { arg: 'required', long: ['focus'], apply: (s, v) => (s.o.focus = v) },
  g: { arg: 'required', long: ['glob'], apply: (s, v) => (s.o.glob = v) },
  ratio: { arg: 'required', long: ['ratio'], apply: (s, v) => (s.o.ratio = skimNumber(v!, '--ratio', FIELD_RULES.ratio)) },
  t: { arg: 'required', long: ['tokens'], apply: (s, v) => (s.o.tokens = skimNumber(v!, '--tokens', FIELD_RULES.count)) },
  session: { arg: 'required', long: ['session'], apply: (s, v) => (s.o.session = v) },
  task: { arg: 'required', long: ['task'], apply: (s, v) => (s.o.task = v) },
  scorer: { arg: 'required', long: ['scorer'], apply: (s, v) => (s.o.scorer = v) },
  model: { arg: 'required', long: ['model'], apply: (s, v) => (s.o.model = v) },
};

/** Long name -> key. */
const LONG: Record<string, string> = Object.fromEntries(Object.entries(OPTIONS).flatMap(([key, spec]) => (spec.long ?? []).map((name) => [name, key])));
const shortKeys = (arg: ArgKind) => new Set(Object.keys(OPTIONS).filter((key) => key.length === 1 && OPTIONS[key].arg === arg));
const SHORT_NOARG = shortKeys('none');
const SHORT_ARG = shortKeys('required');

/** A bad command line (a SkimError 'EUSAGE'; grep exits 2 for it); `usage`: getopt's kind of error, followed by the usage lines (as grep does). */
export class UsageError extends SkimError {
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
  const s: ParseState = {
    o: {
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
    },
    count: false,
    quiet: false,
  };
  const { o } = s;
  let digits = '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      o.operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      let key = LONG[name];
      let full = name;
      if (key === undefined) {
        const candidates = Object.keys(LONG).filter((k) => k.startsWith(name));
        const keys = new Set(candidates.map((k) => LONG[k]));
        if (candidates.length === 0) throw new UsageError(`unrecognized option '--${name}'`, true);
        if (keys.size > 1) throw new UsageError(`option '--${name}' is ambiguous; possibilities: ${candidates.map((k) => `'--${k}'`).join(' ')}`, true);
        full = candidates[0];
        key = LONG[full];
      }
      const { arg: kind, apply } = OPTIONS[key];
      let value: string | undefined;
      if (eq >= 0) {
        if (kind === 'none') throw new UsageError(`option '--${full}' doesn't allow an argument`, true);
        value = arg.slice(eq + 1);
      } else if (kind === 'required') {
        if (i + 1 >= args.length) throw new UsageError(`option '--${full}' requires an argument`, true);
        value = args[++i];
      }
      apply(s, value);
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
          OPTIONS[c].apply(s, value);
          break;
        }
        if (!SHORT_NOARG.has(c)) throw new UsageError(`invalid option -- '${c}'`, true);
        OPTIONS[c].apply(s, undefined);
      }
      continue;
    }
    o.operands.push(arg);
  }
  if (s.quiet) o.mode = 'quiet';
  else if (s.listMode) o.mode = s.listMode === 'l' ? 'files-with-matches' : 'files-without-match';
  else if (s.count) o.mode = 'count';
  return o;
}
