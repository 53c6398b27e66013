/** `skim daemon status` / `stop`: ask the daemon on the user's socket, if one answers. */
import net from 'node:net';
import { encodeFrame, FRAME, jsonOf, readFrames } from './frames.js';
import { checkDir, checkSocket, type DaemonPlace } from './place.js';
import type { DaemonInfo } from './protocol.js';

/** The daemon's answer, or null when none answers (or the socket is not private). */
export async function askDaemon(place: DaemonPlace, op: 'status' | 'stop'): Promise<DaemonInfo | null> {
  if (checkDir(place.dir) || checkSocket(place.socket)) return null;
  const info = await new Promise<DaemonInfo | null>((resolve) => {
    const conn = net.connect(place.socket);
    conn.setTimeout(5000, () => conn.destroy()); // a daemon that does not answer counts as none
    conn.once('connect', () => conn.write(encodeFrame(FRAME.request, { op })));
    conn.on('error', () => resolve(null));
    conn.on('close', () => resolve(null));
    readFrames(
      conn,
      1024 * 1024,
      (f) => {
        resolve(f.kind === FRAME.info ? jsonOf<DaemonInfo>(f) : null);
        conn.destroy();
      },
      () => conn.destroy(),
    );
  });
  if (info && op === 'stop') await gone(info.pid);
  return info;
}

/** Wait until process `pid` has exited (it finishes what it was doing first), at most 10 s. */
async function gone(pid: number): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
