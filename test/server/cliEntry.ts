/**
 * Runs the `skim` CLI from sources (bin/skim.js needs a build): tests spawn
 *   node --import tsx test/server/cliEntry.ts <command> [options]
 * and get the same behaviour as `skim <command>` without `npm run build`.
 */
import { run } from '../../src/cli/cli.js';

run(process.argv).catch((err: unknown) => {
  process.stderr.write(`skim: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(70);
});
