/** What every process entry of `skim` does first: quiet EPIPE, `--version` without commander, errors as exit 70. */
import { VERSION } from '../version.js';

/** `skim cat big.py | head`: the reader went away. Stop quietly, like cat does on SIGPIPE. */
export function guardStdout(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.stderr.write(`skim: cannot write output: ${err.message}\n`);
    process.exit(74);
  });
}

export function start(load: () => Promise<(argv: string[]) => Promise<void>>): void {
  guardStdout();

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
