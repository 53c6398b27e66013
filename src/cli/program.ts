/**
 * The `skim` program: global options, the sub-commands a table names, and the one place where
 * commander's usage errors become exit code 64. ./cli.ts runs it with every sub-command;
 * ./readMain.ts (the bundled entry of the read commands) with prune, cat, grep and rank.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES } from '../core/errors.js';
import { VERSION } from '../version.js';

export type Register = (program: Command) => void;
/** Sub-command name -> its registration, loaded on demand. */
export type CommandTable = Record<string, () => Promise<Register>>;

export async function runProgram(argv: string[], commands: CommandTable): Promise<void> {
  const program = new Command();
  program
    .name('skim')
    .description('Query-conditioned code-context pruner for coding agents')
    .version(VERSION)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride(); // inherited by sub-commands: usage errors exit 64, not 1
  // --- command registrations: the named sub-command only, or all of them for help ---
  // `skim --version` needs none of them; help and unknown commands list them all (each action
  // module imports what its handler needs only when it runs, so registering is cheap).
  const name = argv[2];
  const wanted = name === '--version' || name === '-V' ? [] : name && name in commands ? [name] : Object.keys(commands);
  for (const cmd of wanted) (await commands[cmd]())(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // commander has already printed its message (or the help/version text).
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
    process.exitCode = ok ? 0 : EXIT_CODES.EUSAGE;
  }
}
