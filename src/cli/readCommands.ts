/** The read commands: what dist/skim-read.cjs holds (./readMain.ts) and ./launch.ts sends to it. */
import type { CommandTable } from './program.js';

export const READ_COMMANDS: CommandTable = {
  prune: async () => (await import('./actions/pruneAction.js')).registerPrune,
  cat: async () => (await import('./actions/catAction.js')).registerCat,
  grep: async () => (await import('./actions/grepAction.js')).registerGrep,
  rank: async () => (await import('./actions/rankAction.js')).registerRank,
};
