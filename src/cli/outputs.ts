/**
 * What `skim run` and `skim out` share: a captured output, pruned for the goal hint with the
 * session's output memory, printed byte for byte (kept lines keep their bytes), and the notes on
 * what capturing did (a cap, a time limit) as warnings. Fails open: should pruning fail, the
 * output is printed whole, with a warning.
 */
import type { Command } from 'commander';
import { countLines } from '../core/ingest/ingest.js';
import { MAX_OUTPUT_CHARS } from '../core/output/pruneOutput.js';
import { outputResultJson } from '../core/output/stored.js';
import type { OutputResult } from '../core/output/types.js';
import { pruneToolOutput } from '../core/pruneToolOutput.js';
import type { SessionMemory } from '../core/session/memory.js';
import type { Captured } from '../tools/capture.js';
import { decodeInput } from '../tools/fileTools.js';
import { formatLimit } from '../tools/readCapped.js';
import { readWarnings } from '../tools/readForAgent.js';
import { jsonResult } from './actions/pruneAction.js';
import { warn, writeOut } from './io.js';
import { fitCharsOf, insideRun, type SessionFlags, shownLimitOf, taskOf, withSession } from './session.js';

export interface OutputFlags extends SessionFlags {
  focus?: string;
  json?: boolean;
  /** SKIM_OUTPUT_LIMIT, read (and checked) before the command runs: see withOutputLimit. */
  outputLimit?: string;
}

/** The flags with SKIM_OUTPUT_LIMIT checked: a bad one is a usage error before any command runs or input is read. */
export function withOutputLimit<F extends OutputFlags>(flags: F): F {
  return { ...flags, outputLimit: shownLimitOf(flags.json) };
}

/** --focus, --task, --session, --json: the options of the commands that prune an output. */
export function outputOptions(cmd: Command): Command {
  return cmd
    .option('-f, --focus <question>', 'goal hint: what you need from this output (failures, a name, a path)')
    .option('--task <text>', "the run's overall task, next to --focus (default: $SKIM_TASK)")
    .option('--session <id>', 'session on disk: outputs are kept to expand markers (skim show), a repeated command shows what changed (default: $SKIM_SESSION)')
    .option('--json', 'print one JSON object (text, shape, kept, omitted, folds, handle, warnings, ...)');
}

/**
 * What `skim run` and `skim out` keep of an output: as much as pruneOutput() takes (its head and
 * tail beyond that, src/tools/capture.ts), so that every output they print is pruned.
 */
export const MAX_CAPTURE_BYTES = MAX_OUTPUT_CHARS;

/** Say what a cap did to an output. */
export function capNote(c: Captured): string | undefined {
  if (!c.capped) return undefined;
  return `output over the ${formatLimit(MAX_CAPTURE_BYTES)} limit: its first and last lines are shown, ${c.droppedBytes} of its ${c.bytesPrinted} bytes in between were not kept`;
}

/**
 * Prune a captured output for the flags and print it (or its JSON); `notes` go to stderr after it.
 * A command that read one file (`cat F`, `sed -n 'a,bp' F`) is pruned as that file's read, as
 * `skim cat` would; any other output by its shape.
 */
export async function printOutput(c: Captured, command: string, flags: OutputFlags, notes: string[], extra: Record<string, unknown> = {}): Promise<void> {
  const { text, encoding, warning } = decodeInput(c.output);
  // written inside the session's read: what it records is kept only once the output was written whole
  const warnings = await withSession(flags, async (session) => {
    const answer = await pruneForAgent({ text, encoding, partial: c.capped }, command, flags, extra, session);
    const all = [...(warning ? [warning] : []), ...answer.warnings, ...notes];
    if (flags.json) await writeOut(`${JSON.stringify({ ...answer.json, warnings: all, ...extra })}\n`);
    else await writeOut(answer.text, encoding);
    return all;
  });
  for (const w of warnings) warn(w);
}

/** The output pruned: as a read of one file when the command read one (the code pipeline), else by its shape; whole on any failure. */
async function pruneForAgent(
  { text, encoding, partial }: { text: string; encoding: BufferEncoding; partial: boolean },
  command: string,
  flags: OutputFlags,
  extra: Record<string, unknown>,
  session: SessionMemory | undefined,
): Promise<{ text: string; warnings: string[]; json: object }> {
  // inside another `skim run`: that one prunes this output (once) and records what the agent is shown
  if (insideRun()) {
    const r = wholeOutput(text, []);
    return { text: r.text, warnings: [], json: outputResultJson(r) };
  }
  try {
    const routed = await pruneToolOutput({
      text,
      partial,
      command,
      query: flags.focus,
      task: taskOf(flags),
      exitCode: extra.exitCode as number | undefined,
      session,
      outputLimit: flags.outputLimit,
      fitChars: fitCharsOf(text.length, { json: flags.json }),
      ...(encoding === 'latin1' ? { encoding } : {}),
    });
    const r = routed.result;
    return {
      text: r.text,
      warnings: readWarnings(r.diagnostics),
      json: routed.via === 'read' ? jsonResult(routed.result) : outputResultJson(routed.result),
    };
  } catch (err) {
    const r = wholeOutput(text, [`output not pruned (internal error: ${(err as Error)?.message ?? String(err)})`]);
    return { text: r.text, warnings: r.warnings, json: outputResultJson(r) };
  }
}

/** The output whole, with the reason it was not pruned (if one is to be told). */
function wholeOutput(text: string, warnings: string[]): OutputResult {
  const lines = countLines(text);
  return {
    text,
    shape: 'text',
    keepMask: new Uint8Array(lines).fill(1),
    kept: lines ? [[1, lines]] : [],
    omitted: [],
    folds: [],
    handle: null,
    linesIn: lines,
    charsIn: text.length,
    charsOut: text.length,
    warnings,
    diagnostics: [],
  };
}
