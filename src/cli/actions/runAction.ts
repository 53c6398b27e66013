/**
 * `skim run [--focus Q] -- CMD ARGS...` and `skim run -c "SHELL COMMAND"`: run a command as an
 * agent harness does (stdout and stderr merged in order), print its output pruned for the goal
 * hint, and exit with its exit status (a signal n: 128+n). Bounded: output past the cap is counted
 * and dropped (its first and last lines are shown with a note between, a warning says so), and at the time limit the command's process
 * group is stopped (exit 124, as `timeout`). A command that cannot be started: a one-line message,
 * exit 127 (not found) or 126, as a shell.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { runCaptured, TIMEOUT_STATUS } from '../../tools/capture.js';
import { action, cliIO, MAX_TIMER_MS, numberIn, numberOption, writeErr } from '../io.js';
import { capNote, MAX_CAPTURE_BYTES, type OutputFlags, outputOptions, printOutput, withOutputLimit } from '../outputs.js';
import { INSIDE_RUN_ENV } from '../session.js';

interface RunFlags extends OutputFlags {
  c?: string;
  timeout: number;
}

/** Default time limit: generous, a slow test suite finishes; a command waiting for input does not hang the agent forever. */
export const DEFAULT_TIMEOUT_S = 600;

export function registerRun(program: Command): void {
  const run = program
    .command('run')
    .description("run a command (stdout and stderr merged), print its output pruned for --focus, exit with the command's status")
    .argument('[command...]', 'the command and its arguments, after -- (run as they are, no shell)')
    // `skim run pytest -x` reads -x as skim's own (unknown) option: say where the command's go
    .configureOutput({
      outputError: (message, write) =>
        write(
          /^error: unknown option /.test(message)
            ? `${message.trimEnd()} (the command and its options go after --: skim run [options] -- CMD ARGS...)\n`
            : message,
        ),
    })
    .option('-c <shell command>', 'run this with /bin/sh -c instead (pipes, &&, redirections)')
    .option(
      '--timeout <seconds>',
      'stop the command (its process group) after this long: exit 124 (0 = no limit)',
      numberOption(numberIn(0, MAX_TIMER_MS / 1000)),
      DEFAULT_TIMEOUT_S,
    );
  outputOptions(run).action(
    action(async (words: string[], given: RunFlags) => {
      const flags = withOutputLimit(given);
      if (flags.c !== undefined && words.length > 0) throw new SkimError('give either -c "SHELL COMMAND" or -- CMD ARGS..., not both', 'EUSAGE');
      if (flags.c === undefined && words.length === 0)
        throw new SkimError('no command: skim run [options] -- CMD ARGS... or skim run -c "SHELL COMMAND"', 'EUSAGE');
      const spec = flags.c !== undefined ? { file: '/bin/sh', args: ['-c', flags.c] } : { file: words[0], args: words.slice(1) };
      const command = flags.c ?? words.map(shellQuote).join(' ');
      // a skim inside the command prints to this one: it leaves the pruning and the session to it
      const env = { ...cliIO().env, [INSIDE_RUN_ENV]: '1' };
      const r = await runCaptured(spec, { maxBytes: MAX_CAPTURE_BYTES, timeoutMs: flags.timeout * 1000, env });
      if (r.failure) {
        writeErr(`skim run: ${r.failure.message}\n`);
        return r.status;
      }
      const notes: string[] = [];
      const cap = capNote(r);
      if (cap) notes.push(cap);
      if (r.timedOut) notes.push(`command timed out after ${flags.timeout} s: its process group was stopped (exit ${TIMEOUT_STATUS})`);
      const extra = { exitCode: r.status, ...(r.timedOut ? { timedOut: true } : {}), ...(r.capped ? { bytesPrinted: r.bytesPrinted } : {}) };
      await printOutput(r, command, flags, notes, extra);
      return r.status;
    }),
  );
}

/** A word as a shell would need it written (the command as the agent would have typed it). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
