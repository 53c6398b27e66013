/**
 * What every process entry of `skim` does first: quiet EPIPE, the core's settings from the
 * environment (read here once), `--version` without commander, errors as exit 70.
 */
import { configureCoreFromEnv } from '../env.js';
import { VERSION } from '../version.js';
import { runEarlyExitHooks } from './output.js';
import { guardStdout } from './processStreams.js';

export function start(load: () => Promise<(argv: string[]) => Promise<void>>): void {
  guardStdout(runEarlyExitHooks);
  configureCoreFromEnv(process.env);

  const args = process.argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    // what commander prints for .version(VERSION), without loading commander
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  load()
    .then((run) => run(process.argv))
    .catch((err: unknown) => {
      process.stderr.write(`skim: internal error: ${(err as Error)?.message ?? String(err)}\n`);
      process.exitCode = 70;
    });
}
