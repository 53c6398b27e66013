/**
 * `skim grep`: GNU grep's command line, output and exit status, in-process (src/grep/command.ts),
 * pruned for the goal hint with --focus. grep's options do not fit commander (`-h` is
 * --no-filename, `-5` is a context, `-e` repeats, operands and options mix), so commander only
 * routes here and the arguments are parsed as getopt_long would.
 */
import type { Command } from 'commander';
import { cliIO, cliLog, readStdin, stdinIsReadable, writeErr, writeOut } from '../io.js';

export function registerGrep(program: Command): void {
  // Options after `grep` are grep's own: the program must not take -V/--version from among them.
  program.enablePositionalOptions();
  program
    .command('grep')
    .description('search files like GNU grep (same options, output and exit status), pruned to the --focus question')
    .usage('[OPTION]... PATTERNS [FILE]...   (skim grep --help for all options)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]')
    .action(async (_args: string[], _opts: unknown, cmd: Command) => {
      // commander keeps the argv it parsed (rawArgs, not in its typings): grep's arguments follow "grep".
      const raw = (cmd.parent as { rawArgs?: string[] } | null)?.rawArgs ?? process.argv;
      const at = raw.indexOf('grep', 2);
      const { runGrepCommand } = await import('../../grep/command.js');
      const io = cliIO();
      try {
        io.exitCode = await runGrepCommand(raw.slice(at + 1), {
          stdout: (text) => writeOut(text),
          stderr: writeErr,
          readStdin,
          stdinIsReadable,
          env: io.env,
        });
      } catch (err) {
        writeErr(`skim grep: internal error: ${(err as Error)?.message ?? String(err)}\n`);
        cliLog().debug(`${(err as Error)?.stack}`);
        io.exitCode = 2;
      }
    });
}
