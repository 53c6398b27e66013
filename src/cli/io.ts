/**
 * CLI plumbing shared by the actions: reading input, writing output, and the one boundary where
 * errors become a one-line message and an exit code (never a stack trace for a user error).
 */
import { InvalidArgumentError } from 'commander';
import { EXIT_CODES, SkimError } from '../core/errors.js';
import type { Pruner } from '../core/prune.js';
import { readFileBytes } from '../tools/fileTools.js';
import { MAX_INPUT_BYTES, readStreamCapped } from '../tools/readCapped.js';

/** All of stdin, under the same cap as a file. */
export function readStdin(): Promise<Buffer> {
  return readStreamCapped(process.stdin, MAX_INPUT_BYTES, 'stdin');
}

/** Read FILE, or stdin for "-" / no file. */
export async function readInput(file: string | undefined): Promise<Buffer> {
  if (file === undefined || file === '-') {
    if (process.stdin.isTTY) throw new SkimError('no input: give a FILE or pipe text on stdin', 'EUSAGE');
    return readStdin();
  }
  return readFileBytes(file);
}

export function writeOut(text: string, encoding: BufferEncoding = 'utf8'): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(text, encoding)) resolve();
    else process.stdout.once('drain', () => resolve());
  });
}

export function warn(message: string): void {
  process.stderr.write(`skim: warning: ${message}\n`);
}

/** Run an action; SkimError -> "skim: message" + its exit code; anything else -> exit 70. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      const code = await fn(...args);
      if (typeof code === 'number' && code !== 0) process.exitCode = code;
    } catch (err) {
      if (err instanceof SkimError) {
        process.stderr.write(`skim: ${err.message}\n`);
        process.exitCode = EXIT_CODES[err.code];
      } else {
        process.stderr.write(`skim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
        if (process.env.SKIM_DEBUG) process.stderr.write(`${(err as Error)?.stack}\n`);
        process.exitCode = 70;
      }
    }
  };
}

// --- option parsers (commander) ---
export function parseRatio(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 1) throw new InvalidArgumentError('must be a number >= 1');
  return n;
}
export function parseTokens(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}
export function parseThreshold(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number in [0, 1]');
  return n;
}
export function parseCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
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
  let real: Promise<Pruner> | null = null;
  const get = () => (real ??= import('../core/prune.js').then((m) => m.createPruner({ scorer: s, modelDir: flags.model })));
  return {
    prune: async (req) => (await get()).prune(req),
    scorer: async () => (await get()).scorer(),
  };
}
