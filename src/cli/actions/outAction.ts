/**
 * `CMD 2>&1 | skim out --focus Q --command "CMD"`: prune a command's output piped in, as
 * `skim run` does (same cap: the head and the tail are kept, the middle read and dropped). Exits 0.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { captureStream } from '../../tools/capture.js';
import { action, cliIO } from '../io.js';
import { capNote, MAX_CAPTURE_BYTES, type OutputFlags, outputOptions, printOutput, withOutputLimit } from '../outputs.js';

interface OutFlags extends OutputFlags {
  command?: string;
}

export function registerOut(program: Command): void {
  const out = program
    .command('out')
    .description("prune a command's output piped in (CMD 2>&1 | skim out --focus Q --command CMD)")
    .option('--command <cmd>', 'the command that printed it: its kind of output, and its previous run in the session');
  outputOptions(out).action(
    action(async (given: OutFlags) => {
      const flags = withOutputLimit(given);
      const { stdin } = cliIO();
      if (stdin.isTTY) throw new SkimError("no input: pipe a command's output in (CMD 2>&1 | skim out --command CMD)", 'EUSAGE');
      const c = await captureStream(stdin, MAX_CAPTURE_BYTES);
      const cap = capNote(c);
      await printOutput(c, flags.command ?? '', flags, cap ? [cap] : []);
    }),
  );
}
