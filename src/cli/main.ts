#!/usr/bin/env node
/** Process entry of the `skim` command (bin/skim.js loads the compiled copy of this file). */
import { run } from './cli.js';

// `skim cat big.py | head`: the reader went away. Stop quietly, like cat does on SIGPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  process.stderr.write(`skim: cannot write output: ${err.message}\n`);
  process.exit(74);
});

run(process.argv).catch((err: unknown) => {
  process.stderr.write(`skim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
  process.exitCode = 70;
});
