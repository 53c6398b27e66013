/**
 * The `skim` command line: a thin adapter. Each sub-command lives in ./actions/<name>Action.ts
 * and exports a `register*(program)` function; this file only wires them together.
 */
import { Command } from 'commander';
import { VERSION } from '../version.js';

export async function run(argv: string[]): Promise<void> {
  const program = new Command();
  program
    .name('skim')
    .description('Query-conditioned code-context pruner for coding agents')
    .version(VERSION)
    .showHelpAfterError();
  // --- command registrations (one line each) ---
  await program.parseAsync(argv);
}
