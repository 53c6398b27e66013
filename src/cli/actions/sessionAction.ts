/**
 * `skim session forget ID [--path P]`: the agent's context was compacted (or cut), so the session
 * on disk forgets what it was shown (of one file, or all): nothing folds into "unchanged since an
 * earlier read" markers until it is shown again. For harness hooks (Claude Code's PreCompact,
 * an OpenHands condenser, a mini-swe-agent run that drops its history).
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { action, cliIO, warn } from '../io.js';

export function registerSession(program: Command): void {
  const session = program.command('session').description('manage session memory on disk ($SKIM_SESSION_DIR)');
  session
    .command('forget')
    .description("forget what a session was shown (after the agent's context was compacted): nothing folds until shown again")
    .argument('[id]', 'the session (default: $SKIM_SESSION)')
    .option('--path <file>', 'forget this file only')
    .action(
      action(async (id: string | undefined, flags: { path?: string }) => {
        const { env } = cliIO();
        const session = id ?? env.SKIM_SESSION;
        if (!session || session.trim() === '') throw new SkimError('name the session to forget: skim session forget ID (or set SKIM_SESSION)', 'EUSAGE');
        const { forgetSessionShown } = await import('../../tools/sharedSession.js');
        return (await forgetSessionShown(session, flags.path, warn, env)) ? 0 : 1;
      }),
    );
}
