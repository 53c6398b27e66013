#!/usr/bin/env node
/** Process entry of the `skim` command (bin/skim.js loads the compiled copy of this file). */
import { run } from './cli.js';

run(process.argv).catch((err: unknown) => {
  process.stderr.write(`skim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
  process.exitCode = 70;
});
