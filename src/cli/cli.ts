/**
 * The `skim` command line: a thin adapter. Each sub-command lives in ./actions/<name>Action.ts
 * and exports a `register*(program)` function; this file only wires them together.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES } from '../core/errors.js';
import { VERSION } from '../version.js';
type Register = (program: Command) => void;

/** Sub-commands, loaded lazily: `skim prune` should not pay for loading the HTTP server or the trainer. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  prune: async () => (await import('./actions/pruneAction.js')).registerPrune,
  cat: async () => (await import('./actions/catAction.js')).registerCat,
  grep: async () => (await import('./actions/grepAction.js')).registerGrep,
  rank: async () => (await import('./actions/rankAction.js')).registerRank,
  serve: async () => (await import('./actions/serveAction.js')).registerServe,
  mcp: async () => (await import('./actions/mcpAction.js')).registerMcp,
  bench: async () => (await import('./actions/benchAction.js')).registerBench,
  train: async () => (await import('./actions/trainAction.js')).registerTrain,
  data: async () => (await import('./actions/dataAction.js')).registerData,
  adapt: async () => (await import('./actions/adaptAction.js')).registerAdapt,
};

export async function run(argv: string[]): Promise<void> {
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
  const wanted = name === '--version' || name === '-V' ? [] : name && name in COMMANDS ? [name] : Object.keys(COMMANDS);
  for (const cmd of wanted) (await COMMANDS[cmd]())(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // commander has already printed its message (or the help/version text).
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
    process.exitCode = ok ? 0 : EXIT_CODES.EUSAGE;
  }
}
