/**
 * What bin/skim.js runs. A shell agent starts one `skim cat` / `skim grep` per read, so the read
 * commands (prune, cat, grep, rank) run from dist/skim-read.cjs, one bundled file of the same
 * modules (scripts/bundle.mjs), compiled from a V8 code cache when the build made one that fits
 * this Node: no module resolution, no parsing. Everything else runs ./main.js, the modules as they
 * are; so does every command with SKIM_NO_BUNDLE=1, and when the bundle is missing or older than
 * the last `tsc` (a `tsc` without `npm run build` must not leave a stale bundle in charge).
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { DAEMON_COMMANDS } from './daemon/protocol.js';
import { READ_COMMANDS } from './readCommands.js';

const DIST = dirname(dirname(fileURLToPath(import.meta.url)));
export const BUNDLE_FILE = join(DIST, 'skim-read.cjs');
export const CODE_CACHE_FILE = `${BUNDLE_FILE}.cache`;
/** Code cache file: this magic, then the SHA-1 (hex) of the bundle it was made from, then V8's data. */
const MAGIC = 'skim-code-cache-1\n';
const HEADER_BYTES = MAGIC.length + 40 + 1;

function mtime(file: string): number {
  return statSync(file).mtimeMs;
}

/** The V8 code cache made for exactly this bundle text, or undefined. */
function readCodeCache(hash: string): Buffer | undefined {
  try {
    const buf = readFileSync(CODE_CACHE_FILE);
    if (buf.toString('latin1', 0, HEADER_BYTES) !== `${MAGIC}${hash}\n`) return undefined;
    return buf.subarray(HEADER_BYTES);
  } catch {
    return undefined;
  }
}

/** Run the bundle; false when there is none to run (missing, stale, or turned off). */
export function runBundle(): boolean {
  if (process.env.SKIM_NO_BUNDLE) return false;
  let source: string;
  try {
    if (mtime(BUNDLE_FILE) < mtime(join(DIST, 'cli', 'readMain.js'))) return false;
    source = readFileSync(BUNDLE_FILE, 'utf8');
  } catch {
    return false;
  }
  // V8 checks a cache against the source's length only: the hash makes it this exact text
  const hash = (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).createHash('sha1').update(source).digest('hex');
  const cachedData = readCodeCache(hash);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: BUNDLE_FILE, cachedData });
  if (process.env.SKIM_WRITE_CODE_CACHE) {
    // scripts/bundle.mjs: after the run, every function it compiled goes into the cache
    process.once('exit', () => {
      const tmp = `${CODE_CACHE_FILE}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([Buffer.from(`${MAGIC}${hash}\n`, 'latin1'), script.createCachedData()]));
      renameSync(tmp, CODE_CACHE_FILE);
    });
  }
  const module = { exports: {} };
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  fn.call(module.exports, module.exports, createRequire(BUNDLE_FILE), module, BUNDLE_FILE, DIST);
  return true;
}

export async function launch(): Promise<void> {
  const cmd = process.argv[2];
  if (cmd !== undefined && Object.hasOwn(READ_COMMANDS, cmd)) {
    // the user's warm daemon does the work when it can (src/cli/daemon/); when it cannot, this process does
    if (DAEMON_COMMANDS.has(cmd) && daemonWanted()) {
      const { runThroughDaemon } = await import('./daemon/client.js');
      try {
        if (await runThroughDaemon(process.argv.slice(2))) return;
      } catch {
        // (a working directory that is gone, say): the work is done here, as without a daemon
      }
    }
    if (runBundle()) return;
  }
  await import('./main.js');
}

/** SKIM_DAEMON=0 (or off/false/no) turns the daemon off; so does a platform without Unix sockets. */
function daemonWanted(): boolean {
  const v = (process.env.SKIM_DAEMON ?? '').trim().toLowerCase();
  return process.platform !== 'win32' && !['0', 'off', 'false', 'no'].includes(v);
}
