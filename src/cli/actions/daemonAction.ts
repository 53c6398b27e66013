/**
 * `skim daemon status|stop|run`: the per-user daemon that runs the read commands warm
 * (src/cli/daemon/). The CLI starts it on its own; these show it, stop it, or run one in the
 * foreground.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { action, writeErr, writeOut } from '../io.js';

export function registerDaemon(program: Command): void {
  program
    .command('daemon')
    .description('the background process that runs cat/grep/prune warm: status, stop, or run it in the foreground (SKIM_DAEMON=0 turns it off)')
    .argument('<action>', 'status | stop | run')
    .action(
      action(async (what: string) => {
        const { daemonPlace } = await import('../daemon/place.js');
        const place = daemonPlace();
        if (what === 'run') {
          const { runDaemon } = await import('../daemon/server.js');
          writeErr(`skim daemon: ${await runDaemon(place)}\n`); // (while it serves, this is never reached)
          return 1;
        }
        if (what !== 'status' && what !== 'stop') throw new SkimError(`daemon: unknown action ${what} (use status, stop or run)`, 'EUSAGE');
        const { askDaemon } = await import('../daemon/control.js');
        const info = await askDaemon(place, what);
        if (!info) {
          await writeOut(`skim daemon: not running (${place.socket})\n`);
          return what === 'status' ? 1 : 0;
        }
        if (what === 'stop') {
          await writeOut(`skim daemon: stopped (pid ${info.pid})\n`);
          return 0;
        }
        const age = Math.round((Date.now() - info.startedAt) / 1000);
        await writeOut(
          `skim daemon: running (pid ${info.pid}, version ${info.version}, ${info.socket})\n` +
            `  up ${age} s, ${info.served} request(s) served, ${info.queued} in progress, ${info.waitingForStdin} waiting for stdin, ` +
            `${(info.rssBytes / 1048576).toFixed(0)} MB resident, ` +
            `exits after ${Math.round(info.idleExitMs / 1000)} s idle\n`,
        );
        return 0;
      }),
    );
}
