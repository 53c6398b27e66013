#!/usr/bin/env node
import { run } from '../dist/cli/cli.js';

run(process.argv).catch((err) => {
  process.stderr.write(`skim: ${err && err.message ? err.message : String(err)}\n`);
  process.exit(70);
});
