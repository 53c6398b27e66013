/**
 * The `skim` program: global options, the sub-commands a table names, and the one boundary where
 * errors become a one-line message and an exit code (never a stack trace for a user error):
 * commander's usage errors 64, a SkimError its code's (EXIT_CODES), anything else 70. ./cli.ts runs
 * it with every sub-command; ./readMain.ts (the bundled entry of the read commands) with prune,
 * cat, grep and rank.
 */
import { Command, CommanderError, type OutputConfiguration } from 'commander';
import { EXIT_CODES, EXIT_INTERNAL, SkimError } from '../core/errors.js';
import { VERSION } from '../version.js';
import { type CliStreams, streams } from './streams.js';

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
    .exitOverride() // inherited by sub-commands: usage errors exit 64, not 1
    .configureOutput(outputOf(streams())); // inherited too: help and usage errors go where the run's output goes
  // --- command registrations: the named sub-command only, or all of them for help ---
  // `skim --version` needs none of them; help and unknown commands list them all (each action
  // module imports what its handler needs only when it runs, so registering is cheap).
  const name = argv[2];
  const wanted = name === '--version' || name === '-V' ? [] : name && name in commands ? [name] : Object.keys(commands);
  for (const cmd of wanted) (await commands[cmd]())(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = exitCodeOf(err);
  }
}

/** Say what went wrong (once, on stderr) and give the exit code for it. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander has already printed its message (or the help/version text).
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
    return ok ? 0 : EXIT_CODES.EUSAGE;
  }
  if (err instanceof SkimError) {
    streams().stderr(`skim: ${err.message}\n`);
    return EXIT_CODES[err.code];
  }
  streams().stderr(`skim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
  if (process.env.SKIM_DEBUG) streams().stderr(`${(err as Error)?.stack}\n`);
  return EXIT_INTERNAL;
}

/** commander's output settings for a run's streams: its defaults, with the run's terminals in place of this process's. */
function outputOf(io: CliStreams): OutputConfiguration {
  const forced = colorForcedByEnv();
  return {
    writeOut: (text) => void io.stdout(text),
    writeErr: (text) => io.stderr(text),
    // undefined off a terminal, as commander's own default (its typings say number)
    getOutHelpWidth: () => io.stdoutTerminal.columns as number,
    getErrHelpWidth: () => io.stderrTerminal.columns as number,
    getOutHasColors: () => forced ?? io.stdoutTerminal.hasColors,
    getErrHasColors: () => forced ?? io.stderrTerminal.hasColors,
  };
}

/** commander's own reading of NO_COLOR / FORCE_COLOR / CLICOLOR_FORCE (its private useColor()), read from the run's environment. */
function colorForcedByEnv(): boolean | undefined {
  const env = process.env;
  if (env.NO_COLOR || env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.FORCE_COLOR || env.CLICOLOR_FORCE !== undefined) return true;
  return undefined;
}
