/**
 * `skim grep`: GNU grep's command line (parsed in options.ts), its output and exit status (0
 * selected lines, 1 none, 2 trouble), plus skim's pruning options.
 * Without --focus/--ratio/--tokens the output is GNU grep's; with them it is printed as `grep -Hn`
 * would print it and pruned for the question. Independent of commander and of process globals
 * (everything comes through GrepCommandIO), so tests run it in-process.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SkimError } from '../core/errors.js';
import { asksToPrune, readForAgent, readWarnings } from '../tools/readForAgent.js';
import { VERSION } from '../version.js';
import { compileGrepMatcher } from './linePattern.js';
import { GREP_HELP, type ParsedGrepArgs, parseGrepArgs, USAGE, UsageError } from './options.js';
import { type GrepOutputMode, type GrepSearchOptions, runGrepSearch } from './search.js';

export interface GrepCommandIO {
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
  readStdin(): Promise<Buffer>;
  /** Standard input is a pipe, a file or a socket (not a terminal, not /dev/null). */
  stdinIsReadable(): boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
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
  const p = await readCommandLine(args, io);
  if (typeof p === 'number') return p;
  const patterns = await readPatterns(p, io);
  if (typeof patterns === 'number') return patterns;
  if (p.maxCount === 0) return 1; // grep -m 0 reads nothing
  // a question or a budget: the lines are printed as `grep -Hn` would and pruned (session memory alone records what grep printed)
  const prunedLines = asksToPrune({ query: p.focus, ratio: p.ratio, tokens: p.tokens }) && p.mode === 'lines';
  const search = searchOf(p, patterns, prunedLines, io);
  if (typeof search === 'number') return search;
  const env = io.env ?? process.env;
  const sessionId = p.session ?? env.SKIM_SESSION;
  if (!prunedLines && (sessionId === undefined || sessionId.trim() === '')) {
    const message = (text: string) => io.stderr(`skim grep: ${text}\n`);
    const outcome = await runGrepSearch(search.operands, search.opts, { write: io.stdout, message, readStdin: io.readStdin });
    return exitStatus(outcome.selected, outcome.errors, p.mode);
  }
  return searchWithSession(p, search, { prunedLines, sessionId, env }, io);
}

/** The parsed arguments, or the exit status when there is nothing to search (--help, --version, a usage error). */
async function readCommandLine(args: string[], io: GrepCommandIO): Promise<ParsedGrepArgs | number> {
  let p: ParsedGrepArgs;
  try {
    p = parseGrepArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`skim grep: ${e.message}\n`);
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
  return p;
}

/** The patterns (and --exclude-from's globs, added to the file filters), or exit status 2 when they cannot be read or there are none. */
async function readPatterns(p: ParsedGrepArgs, io: GrepCommandIO): Promise<string[] | number> {
  const err = (msg: string) => io.stderr(`skim grep: ${msg}\n`);
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
  return patterns;
}

/** What to search (standard input or `.` without operands) and how. */
interface Search {
  operands: string[];
  opts: GrepSearchOptions;
}

/** The search the options ask for; exit status 2 when a pattern does not compile. */
function searchOf(p: ParsedGrepArgs, patterns: string[], prunedLines: boolean, io: GrepCommandIO): Search | number {
  let matcher: GrepSearchOptions['matcher'];
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
    io.stderr(`skim grep: ${e.message}\n`);
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
  const opts: GrepSearchOptions = {
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
  return { operands, opts };
}

/**
 * The search with session memory or pruning (both load the model and the session store: only when
 * asked for): lines grep printed are remembered, or the `grep -Hn` lines are pruned for the question.
 */
async function searchWithSession(
  p: ParsedGrepArgs,
  search: Search,
  run: { prunedLines: boolean; sessionId: string | undefined; env: NodeJS.ProcessEnv },
  io: GrepCommandIO,
): Promise<number> {
  const { prunedLines, env } = run;
  const message = (text: string) => io.stderr(`skim grep: ${text}\n`);
  const { withSession, taskOf, outputLimitOf } = await import('../cli/session.js');
  const outputLimit = outputLimitOf(env);
  return withSession({ session: run.sessionId, task: p.task }, async (session) => {
    let text = '';
    const shown: Array<[string, number, string]> = [];
    const outcome = await runGrepSearch(search.operands, search.opts, {
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
      const { prunerFor } = await import('../cli/io.js');
      const pruner = prunerFor({ scorer: p.scorer, model: p.model });
      const req = { code: text, query: p.focus, task: taskOf({ task: p.task }), ratio: p.ratio, tokens: p.tokens, outputLimit, session };
      const read = await readForAgent(pruner.prune, req, { onFailure: (m) => io.stderr(`skim: warning: ${m}\n`) });
      for (const w of readWarnings(read.result?.diagnostics ?? [])) io.stderr(`skim: warning: ${w}\n`);
      await io.stdout(read.text);
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
