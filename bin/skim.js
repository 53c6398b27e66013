#!/usr/bin/env node
// CommonJS (bin/package.json): a call the warm daemon answers then loads no ES module at all.
// dist/skim-launch.cjs is src/cli/launch.ts bundled with the daemon's client (scripts/bundle.mjs);
// when it is missing, older than the last `tsc`, or SKIM_NO_BUNDLE is set, the modules run instead.
'use strict';
const { statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
function bundled() {
  if (process.env.SKIM_NO_BUNDLE) return null;
  try {
    const launcher = join(dist, 'skim-launch.cjs');
    if (statSync(launcher).mtimeMs < statSync(join(dist, 'cli', 'launch.js')).mtimeMs) return null;
    return require(launcher);
  } catch {
    return null;
  }
}

const launcher = bundled();
if (launcher) launcher.launch();
else import('../dist/cli/launch.js').then((m) => m.launch());
