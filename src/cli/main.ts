#!/usr/bin/env node
/** Process entry of the `skim` command (bin/skim.js loads the compiled copy of this file). */
import { VERSION } from '../version.js';

// `skim cat big.py | head`: the reader went away. Stop quietly, like cat does on SIGPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  process.stderr.write(`skim: cannot write output: ${err.message}\n`);
  process.exit(74);
});

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // what commander prints for .version(VERSION), without loading commander
  process.stdout.write(`${VERSION}\n`);
} else {
  import('./cli.js')
    .then(({ run }) => run(process.argv))
    .catch((err: unknown) => {
      process.stderr.write(`skim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
      process.exitCode = 70;
    });
}
