/**
 * Before the tests: the few that run the real binary (bin/skim.js runs dist/) need a build of the
 * sources as they are. When dist/ is missing or older than a file of src/, build it once here
 * (`npm run build`), rather than let those tests run yesterday's code.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

function newestIn(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestIn(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return Math.min(statSync(path.join(ROOT, 'dist/cli/launch.js')).mtimeMs, statSync(path.join(ROOT, 'dist/skim-read.cjs')).mtimeMs);
  } catch {
    return 0;
  }
}

export default function setup(): void {
  if (builtAt() >= newestIn(path.join(ROOT, 'src'))) return;
  process.stderr.write('dist/ is missing or older than src/: npm run build (the tests that run bin/skim.js use it)\n');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
