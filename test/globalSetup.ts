/**
 * Before the tests: the few that run the real binary (bin/skim.js runs dist/) need a build of the
 * sources as they are. When dist/ is missing or older than a file of src/, build it once here
 * (`npm run build`), rather than let those tests run yesterday's code.
 *
 * Every temporary file of the run (the tests', and those of the processes and daemons they start)
 * goes under one directory of its own, removed when the run ends: a test that forgets to clean up,
 * or is stopped before it can, leaves nothing behind.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

export default function setup(): () => void {
  if (builtAt() < newestIn(path.join(ROOT, 'src'))) {
    process.stderr.write('dist/ is missing or older than src/: npm run build (the tests that run bin/skim.js use it)\n');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  // (each test project runs this setup: the first one makes the directory)
  if (process.env.SKIM_TESTS_TMPDIR) return () => {};
  const runTmp = mkdtempSync(path.join(tmpdir(), 'skim-tests-'));
  process.env.SKIM_TESTS_TMPDIR = runTmp;
  process.env.TMPDIR = runTmp; // os.tmpdir() of the test workers and every process they start
  return () => rmSync(runTmp, { recursive: true, force: true });
}
