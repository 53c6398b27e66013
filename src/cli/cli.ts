/**
 * The `skim` command line: a thin adapter. Each sub-command lives in ./actions/<name>Action.ts
 * and exports a `register*(program)` function; this file only wires them together (./program.ts).
 */
import type { CliIO } from './io.js';
import { type CommandTable, runProgram } from './program.js';

/** Sub-commands, loaded lazily: `skim prune` should not pay for loading the HTTP server or the trainer. */
export const COMMANDS: CommandTable = {
  prune: async () => (await import('./actions/pruneAction.js')).registerPrune,
  cat: async () => (await import('./actions/catAction.js')).registerCat,
  grep: async () => (await import('./actions/grepAction.js')).registerGrep,
  rank: async () => (await import('./actions/rankAction.js')).registerRank,
  run: async () => (await import('./actions/runAction.js')).registerRun,
  out: async () => (await import('./actions/outAction.js')).registerOut,
  show: async () => (await import('./actions/showAction.js')).registerShow,
  session: async () => (await import('./actions/sessionAction.js')).registerSession,
  serve: async () => (await import('./actions/serveAction.js')).registerServe,
  mcp: async () => (await import('./actions/mcpAction.js')).registerMcp,
  bench: async () => (await import('./actions/benchAction.js')).registerBench,
  train: async () => (await import('./actions/trainAction.js')).registerTrain,
  data: async () => (await import('./actions/dataAction.js')).registerData,
  adapt: async () => (await import('./actions/adaptAction.js')).registerAdapt,
  daemon: async () => (await import('./actions/daemonAction.js')).registerDaemon,
};

/** Run `skim` on `argv` (['node', 'skim', ...args]) with `io` (default: the process's streams). */
export function run(argv: string[], io?: CliIO): Promise<void> {
  return runProgram(argv, COMMANDS, io);
}
