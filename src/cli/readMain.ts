/**
 * Process entry of the read commands (prune, cat, grep, rank) alone: what scripts/bundle.mjs
 * bundles into dist/skim-read.cjs, the file ./launch.ts runs for them with a V8 code cache. The
 * sub-commands are the same modules as in ./cli.ts, so the same arguments give the same output.
 */
import { start } from './entry.js';
import { runProgram } from './program.js';
import { READ_COMMANDS } from './readCommands.js';

start(async () => (argv) => runProgram(argv, READ_COMMANDS));
