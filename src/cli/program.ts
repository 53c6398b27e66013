/**
 * The `skim` program: global options, the sub-commands a table names, and the one boundary where
 * errors become a one-line message and an exit code (never a stack trace for a user error):
 * commander's usage errors 64, a SkimError its code's (EXIT_CODES), anything else 70. ./cli.ts runs
 * it with every sub-command; ./readMain.ts (the bundled entry of the read commands) with prune,
 * cat, grep and rank.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES, EXIT_INTERNAL, EXIT_OUTPUT, SkimError } from '../core/errors.js';
import { VERSION } from '../version.js';
import { type CliIO, cliIO, cliLog, setVerbose, withCliIO } from './io.js';
import { type TerminalInfo, terminalOf } from './processStreams.js';

export type Register = (program: Command) => void;
/** Sub-command name -> its registration, loaded on demand. */
export type CommandTable = Record<string, () => Promise<Register>>;

/** Run the program on `argv` with `io` (default: the process's streams; the exit code goes to io.exitCode). */
export function runProgram(argv: string[], commands: CommandTable, io: CliIO = process): Promise<void> {
  return withCliIO(io, () => parseAndRun(argv, commands));
}

async function parseAndRun(argv: string[], commands: CommandTable): Promise<void> {
  const program = new Command();
  program
    .name('skim')
    .configureOutput({
      writeOut: (text) => cliIO().stdout.write(text),
      writeErr: (text) => cliIO().stderr.write(text),
      // undefined off a terminal, as commander's own default (its typings say number)
      getOutHelpWidth: () => terminalOfRun('stdout').columns as number,
      getErrHelpWidth: () => terminalOfRun('stderr').columns as number,
      getOutHasColors: () => colorForcedByEnv(cliIO().env) ?? terminalOfRun('stdout').hasColors,
      getErrHasColors: () => colorForcedByEnv(cliIO().env) ?? terminalOfRun('stderr').hasColors,
    })
    .description('Query-conditioned code-context pruner for coding agents')
    .version(VERSION)
    .option('--verbose', 'debug messages on stderr (the stack of an internal error, ...)')
    .hook('preAction', () => {
      if (program.opts().verbose) setVerbose();
    })
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
    cliIO().exitCode = exitCodeOf(err);
  }
}

/** The terminal behind the run's stdout or stderr (help wraps to its width, coloured if it has colours). */
function terminalOfRun(which: 'stdout' | 'stderr'): TerminalInfo {
  const io = cliIO();
  return io.terminals?.[which] ?? terminalOf(io[which]);
}

/** commander's own reading of NO_COLOR / FORCE_COLOR / CLICOLOR_FORCE (its private useColor()), from the run's environment. */
function colorForcedByEnv(env: NodeJS.ProcessEnv): boolean | undefined {
  if (env.NO_COLOR || env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.FORCE_COLOR || env.CLICOLOR_FORCE !== undefined) return true;
  return undefined;
}

/** Say what went wrong (once, on stderr) and give the exit code for it. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander has already printed its message (or the help/version text).
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
    return ok ? 0 : EXIT_CODES.EUSAGE;
  }
  const { stderr } = cliIO();
  if (err instanceof SkimError) {
    stderr.write(`skim: ${err.message}\n`);
    return EXIT_CODES[err.code];
  }
  // the output could not be written: ./entry.ts says so (or stays quiet for EPIPE) and exits
  if ((err as NodeJS.ErrnoException)?.syscall === 'write') return (err as NodeJS.ErrnoException).code === 'EPIPE' ? 0 : EXIT_OUTPUT;
  stderr.write(`skim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
  cliLog().debug(`${(err as Error)?.stack}`);
  return EXIT_INTERNAL;
}
