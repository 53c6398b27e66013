/**
 * Where the daemon listens and which build it is. One socket per user, package directory and
 * version, in a private directory: $SKIM_DAEMON_DIR, else $XDG_RUNTIME_DIR/skim, else
 * <tmpdir>/skim-<uid>. The directory must be the user's own and 0700, the socket the user's own
 * and 0600: anything else is refused (the CLI then works in process), never repaired, since
 * another user could have put it there.
 */
import { lstatSync, type Stats, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreSettingsFromEnv } from '../../env.js';
import { VERSION } from '../../version.js';

/** The package directory (dist/cli/daemon/ -> the root, as from src/cli/daemon/). */
export const PACKAGE_ROOT = dirname(dirname(dirname(dirname(fileURLToPath(import.meta.url)))));

export interface DaemonPlace {
  dir: string;
  socket: string;
  /** The daemon's pid, for a client to stop a daemon that accepts but does not answer. */
  pidFile: string;
  /** Taken by the client that starts a daemon, so that many first calls at once start one. */
  startLock: string;
}

export function daemonPlace(env: NodeJS.ProcessEnv = process.env): DaemonPlace {
  const uid = process.getuid?.() ?? 0;
  const dir = env.SKIM_DAEMON_DIR || (env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'skim') : join(tmpdir(), `skim-${uid}`));
  // a checkout and an installed package of the same version are different daemons
  const pkg = fnv1a(PACKAGE_ROOT);
  const base = `skim-${VERSION}-${pkg}`;
  return { dir, socket: join(dir, `${base}.sock`), pidFile: join(dir, `${base}.pid`), startLock: join(dir, `${base}.starting`) };
}

/** A short hash of a name (FNV-1a, 32 bits, hex): loading node:crypto would cost the client more than the call. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Why a path may not be trusted as ours ('' when it may). */
function distrust(info: Stats, what: string, mode: number): string {
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) return `${what} belongs to another user (uid ${info.uid})`;
  if ((info.mode & 0o777 & ~mode) !== 0) return `${what} has mode ${(info.mode & 0o777).toString(8)} (wanted ${mode.toString(8)} at most)`;
  return '';
}

/** Why the directory cannot be used ('' when it can; 'missing' when it does not exist). */
export function checkDir(dir: string): string {
  return checkOwned(dir, 'directory', 0o700);
}

/** Why the socket cannot be used ('' when it can; 'missing' when it does not exist). */
export function checkSocket(socket: string): string {
  return checkOwned(socket, 'socket', 0o600);
}

/** Why `path` cannot be used as the user's own `kind` of at most `mode` ('missing' when it does not exist). */
function checkOwned(path: string, kind: 'directory' | 'socket', mode: number): string {
  let info: Stats;
  try {
    info = lstatSync(path);
  } catch {
    return 'missing';
  }
  if (!(kind === 'directory' ? info.isDirectory() : info.isSocket())) return `${path} is not a ${kind}`;
  return distrust(info, path, mode);
}

function stamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return '-';
  }
}

/**
 * What a daemon must share with a client to answer for it: the version, the build (the compiled
 * entry's time stamp: every `tsc` rewrites it), the shipped model's files, the Node binary, and
 * the core's settings (read once, as the process starts, from its environment). A daemon that gets another build's request exits.
 */
export function buildFingerprint(env: NodeJS.ProcessEnv = process.env): string {
  const model = join(PACKAGE_ROOT, 'models', 'default');
  return [
    VERSION,
    stamp(join(PACKAGE_ROOT, 'dist', 'cli', 'readMain.js')),
    ...['model.json', 'weights.bin', 'bridge.bin'].map((f) => stamp(join(model, f))),
    process.execPath,
    process.version,
    JSON.stringify(coreSettingsFromEnv(env)),
  ].join('|');
}
