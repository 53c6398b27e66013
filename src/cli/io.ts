/**
 * CLI plumbing shared by the actions: reading input, writing output, option values. Errors are
 * thrown as they are; ../program.ts turns them into a message and an exit code.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { SkimError } from '../core/errors.js';
import type { Pruner } from '../core/prune.js';
import { FIELD_RULES } from '../core/request.js';
import { createLogger, type Logger } from '../log.js';
import { readFileBytes } from '../tools/fileTools.js';
import { MAX_INPUT_BYTES, readStreamCapped } from '../tools/readCapped.js';
import { processStdinIsReadable, type TerminalInfo } from './processStreams.js';

/**
 * Where a command reads and writes: stdin, stdout, stderr, the environment and the exit code.
 * `process` is one (the default); tests run the program in-process with their own
 * (runProgram's `io`), so a command's output and exit code are checked without a process; the
 * daemon (./daemon/server.ts) runs each request with one that forwards to its client.
 */
export interface CliIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  exitCode?: number | string | null;
  /** Standard input is a pipe, a file or a socket (grep reads it then); default: fstat of fd 0. */
  stdinIsReadable?(): boolean;
  /** The terminals behind stdout and stderr when the streams are not them (the daemon's client's); default: the streams' own. */
  terminals?: { stdout: TerminalInfo; stderr: TerminalInfo };
  /**
   * Whether what was written to stdout has reached its reader: true once it has, false when that
   * is not known in time; rejects as a failed write does (EPIPE) when it could not. Session
   * memory asks before it records a read (and records nothing unless true). Needed where a write
   * completes before the reader has the bytes (the daemon's client prints them later); default:
   * a completed write has reached the reader.
   */
  delivered?(): Promise<boolean>;
}

/** Per call chain, so runs with their own IO may overlap in one process. */
const ioOfRun = new AsyncLocalStorage<CliIO>();

/** The IO of the command running now (process unless a test gave its own). */
export function cliIO(): CliIO {
  return ioOfRun.getStore() ?? process;
}

/** Run `fn` with `io` as the commands' IO. */
export function withCliIO<T>(io: CliIO, fn: () => Promise<T>): Promise<T> {
  return ioOfRun.run(io, fn);
}

/** A pipe, a file or a socket on stdin is input (as grep reads it); a terminal or /dev/null is not. */
export function stdinIsReadable(): boolean {
  const io = cliIO();
  return io.stdinIsReadable ? io.stdinIsReadable() : processStdinIsReadable();
}

/** All of stdin, under the same cap as a file. */
export function readStdin(): Promise<Buffer> {
  return readStreamCapped(cliIO().stdin, MAX_INPUT_BYTES, 'stdin');
}

/** Read FILE, or stdin for "-" / no file. */
export async function readInput(file: string | undefined): Promise<Buffer> {
  if (file === undefined || file === '-') {
    if (cliIO().stdin.isTTY) throw new SkimError('no input: give a FILE or pipe text on stdin', 'EUSAGE');
    return readStdin();
  }
  return readFileBytes(file);
}

export { writeOut } from './output.js';

/** A line on stderr (a message of the command, not its output). */
export function writeErr(text: string): void {
  cliIO().stderr.write(text);
}

/** Runs that asked for debug messages (--verbose), by their IO. */
const verboseRuns = new WeakSet<CliIO>();

/** The running command asked for debug messages (the program's --verbose). */
export function setVerbose(): void {
  verboseRuns.add(cliIO());
}

/** The running command's diagnostics on its stderr: debug messages with --verbose (or SKIM_DEBUG set). */
export function cliLog(): Logger {
  const io = cliIO();
  return createLogger((text) => io.stderr.write(text), verboseRuns.has(io) || io.env.SKIM_DEBUG ? 'debug' : 'info');
}

export function warn(message: string): void {
  cliLog().warn(`skim: warning: ${message}`);
}

/** An action whose return value is its exit code (0 or none: success). Errors propagate to the program's boundary. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const code = await fn(...args);
    if (typeof code === 'number' && code !== 0) cliIO().exitCode = code;
  };
}

// --- option values ---
/**
 * The one parser of numeric option values: the text as a number, checked by a rule (a field rule
 * of the request schema, FIELD_RULES in src/core/request.ts, or intAtLeast/numberIn). Anything
 * else (empty, "abc", NaN, out of range) is a usage error naming the option.
 */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

export function numberOption(rule: z.ZodType<number>): (value: string) => number {
  return (value: string) => {
    // decimal only: Number() would also read "0x10" as 16 and "0b11" as 3
    const n = DECIMAL.test(value.trim()) ? Number(value) : /^[+-]?infinity$/i.test(value.trim()) ? Number.POSITIVE_INFINITY : Number.NaN;
    if (Number.isNaN(n)) throw new InvalidArgumentError('not a number');
    if (!Number.isFinite(n)) throw new InvalidArgumentError('must be a finite number');
    const r = rule.safeParse(n);
    if (!r.success) throw new InvalidArgumentError(r.error.issues.map(describeIssue).join('; '));
    return r.data;
  };
}

/** A rule's complaint about a number, in the words of an option's help. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_small') return `must be ${issue.inclusive === false ? '>' : '>='} ${issue.minimum}`;
  if (issue.code === 'too_big') return `must be ${issue.inclusive === false ? '<' : '<='} ${issue.maximum}`;
  if (issue.code === 'invalid_type' && issue.expected === 'int') return 'must be an integer';
  return issue.message;
}

/** An integer in [min, max] (max: no bound beyond the safe integers when left out). */
export const intAtLeast = (min: number, max = Number.MAX_SAFE_INTEGER): z.ZodType<number> => z.number().int().min(min).max(max);
/** The longest delay a Node timer takes (2^31-1 ms, about 24.8 days): a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** A finite number in [min, max] (max: no bound when left out). */
export const numberIn = (min: number, max = Number.MAX_VALUE): z.ZodType<number> => z.number().min(min).max(max);

/** --scorer and --model, for every command that prunes (prunerFor reads them). */
export function scorerOptions(cmd: Command): Command {
  return cmd.option('--scorer <name>', 'learned (default) or heuristic').option('--model <dir>', 'model weights directory (default: the shipped model)');
}

/** What pruneOptions adds (the goal hint aside, whose name differs). */
export interface PruneOptionFlags extends ScorerFlags {
  ratio?: number;
  tokens?: number;
  maxChars?: number;
  session?: string;
  task?: string;
}

/**
 * The options of the pruning read commands, with the request schema's rules: the goal hint
 * (`goal`: its flags, e.g. '-q, --query <text>', and help), the budgets, session memory, the task,
 * the scorer.
 */
export function pruneOptions(cmd: Command, goal: string, goalHelp: string): Command {
  const name = /--[\w-]+/.exec(goal)![0];
  return scorerOptions(
    cmd
      .option(goal, goalHelp)
      .option('-r, --ratio <n>', 'budget: output tokens <= input tokens / n', numberOption(FIELD_RULES.ratio))
      .option('-t, --tokens <n>', 'budget: output tokens <= n', numberOption(FIELD_RULES.count))
      .option('--max-chars <n>', `budget: output characters <= n, markers included (the lines that serve ${name} first)`, numberOption(FIELD_RULES.count))
      .option('--session <id>', 'session memory on disk: lines this session was shown before, unchanged, fold into markers (default: $SKIM_SESSION)')
      .option('--task <text>', `the run's overall task, scored next to ${name} (default: $SKIM_TASK)`),
  );
}

export interface ScorerFlags {
  scorer?: string;
  model?: string;
}

/**
 * A pruner for the --scorer/--model flags shared by the commands. The pipeline (grammars, model,
 * tokenizer) is imported on the first call, so a command that never prunes does not load it.
 */
export function prunerFor(flags: ScorerFlags): Pruner {
  const s = flags.scorer ?? 'learned';
  if (s !== 'learned' && s !== 'heuristic') throw new SkimError(`unknown scorer: ${s} (use learned or heuristic)`, 'EUSAGE');
  if (flags.model !== undefined && !existsSync(flags.model)) throw new SkimError(`model directory not found: ${flags.model}`, 'ENOINPUT');
  let real: Promise<Pruner> | null = null;
  const get = () => (real ??= import('../core/prune.js').then((m) => m.createPruner({ scorer: s, modelDir: flags.model })));
  return {
    prune: async (req) => (await get()).prune(req),
    scorer: async () => (await get()).scorer(),
  };
}
