/**
 * `CMD 2>&1 | skim out --focus Q --command "CMD"`: prune a command's output piped in, as
 * `skim run` does (same cap: the head is kept, the rest read and dropped). Exits 0.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { captureStream } from '../../tools/capture.js';
import { MAX_INPUT_BYTES } from '../../tools/readCapped.js';
import { action, cliIO } from '../io.js';
import { capNote, type OutputFlags, outputOptions, printOutput, withOutputLimit } from '../outputs.js';

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
      const c = await captureStream(stdin, MAX_INPUT_BYTES);
      const cap = capNote({ ...c, maxBytes: MAX_INPUT_BYTES });
      await printOutput({ ...c, maxBytes: MAX_INPUT_BYTES }, flags.command ?? '', flags, cap ? [cap] : []);
    }),
  );
}
