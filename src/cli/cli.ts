/**
 * The `skim` command line: a thin adapter. Each sub-command lives in ./actions/<name>Action.ts
 * and exports a `register*(program)` function; this file only wires them together.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES } from '../core/errors.js';
import { VERSION } from '../version.js';
import { registerCat } from './actions/catAction.js';
import { registerGrep } from './actions/grepAction.js';
import { registerPrune } from './actions/pruneAction.js';
import { registerServe } from './actions/serveAction.js';
import { registerMcp } from './actions/mcpAction.js';
import { registerRank } from './actions/rankAction.js';
import { registerBench } from './actions/benchAction.js';
import { registerTrain } from './actions/trainAction.js';

export async function run(argv: string[]): Promise<void> {
  const program = new Command();
  program
    .name('skim')
    .description('Query-conditioned code-context pruner for coding agents')
    .version(VERSION)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride(); // inherited by sub-commands: usage errors exit 64, not 1
  // --- command registrations (one line each) ---
  registerPrune(program);
  registerCat(program);
  registerGrep(program);
  registerServe(program);
  registerMcp(program);
  registerRank(program);
  registerBench(program);
  registerTrain(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // commander has already printed its message (or the help/version text).
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
    process.exitCode = ok ? 0 : EXIT_CODES.EUSAGE;
  }
}
