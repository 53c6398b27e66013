/**
 * `skim cat FILE... [--focus Q]`: like `cat -n` for a shell-only agent, pruned for the goal hint.
 * Several files get `==> path <==` headers and their own numbering. Exit 1 when a file could not
 * be read (the others are still printed), as cat does.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { limitAfter } from '../../core/outputLimit.js';
import { FIELD_RULES } from '../../core/request.js';
import { numberLines, readTextFile } from '../../tools/fileTools.js';
import { prunesRead, readForAgent, readWarnings } from '../../tools/readForAgent.js';
import { action, numberOption, type PruneOptionFlags, pruneOptions, prunerFor, warn, writeErr, writeOut } from '../io.js';
import { fitCharsOf, shownLimitOf, taskOf, withSession } from '../session.js';

type CatFlags = PruneOptionFlags & { focus?: string; offset?: number; limit?: number };

/** Room for a file's note that it was fitted to the limit (its path aside, "skim: warning: ... pruned to fit ..."). */
const FIT_NOTE_ROOM = 200;

export function registerCat(program: Command): void {
  const cat = program
    .command('cat')
    .description('print files numbered like `cat -n`, pruned to what the --focus question needs')
    .argument('<files...>', 'files to read');
  pruneOptions(cat, '-f, --focus <question>', 'goal hint: a complete question about the logic you need (omit to read whole)')
    .option('--offset <line>', 'first line to show (1-based)', numberOption(FIELD_RULES.count))
    .option('--limit <n>', 'number of lines to show', numberOption(FIELD_RULES.count))
    .action(
      action(async (files: string[], flags: CatFlags) =>
        withSession(flags, async (session) => {
          const pruner = prunerFor(flags);
          const task = taskOf(flags);
          const limit = shownLimitOf();
          let written = 0;
          // skim's warnings on stderr: the harness reads them with the answer, and under its limit
          let warned = 0;
          const say = (message: string) => {
            warned += `skim: warning: ${message}\n`.length;
            warn(message);
          };
          let status = 0;
          for (const [index, file] of files.entries()) {
            let text: string;
            let encoding: 'utf8' | 'latin1';
            let warning: string | undefined;
            try {
              ({ text, encoding, warning } = await readTextFile(file));
            } catch (err) {
              if (!(err instanceof SkimError)) throw err;
              writeErr(`skim cat: ${err.message}\n`);
              status = 1;
              continue;
            }
            const numbered = numberLines(text, { offset: flags.offset, limit: flags.limit });
            if (files.length > 1) {
              const header = `==> ${file} <==\n`;
              await writeOut(header);
              written += header.length;
            }
            const req = {
              code: numbered,
              query: flags.focus,
              task,
              path: file,
              ratio: flags.ratio,
              tokens: flags.tokens,
              maxChars: flags.maxChars,
              // a range the agent named: without --focus it is shown in full (src/core/ingest)
              window: flags.offset !== undefined || flags.limit !== undefined,
              outputLimit: limit && (files.length > 1 ? limitAfter(limit, written) : limit),
              // what the limit leaves: less what was printed, and room for each later file's note of its fit
              fitChars: fitCharsOf(numbered.length, {
                written: written + warned + files.slice(index + 1).reduce((n, f) => n + f.length + FIT_NOTE_ROOM, 0),
                filesLeft: files.length - index,
              }),
              session,
            };
            if (!prunesRead(req, numbered)) {
              await writeOut(numbered, encoding);
              written += numbered.length;
              continue;
            }
            // a file that is not valid UTF-8 is pruned as Latin-1 text, so its kept lines keep their bytes
            if (warning) say(`${file}: ${warning}`);
            const read = await readForAgent(pruner.prune, req, { onFailure: (message) => say(`${file}: ${message}`) });
            for (const w of readWarnings(read.result?.diagnostics ?? [])) say(`${file}: ${w}`);
            await writeOut(read.text, encoding);
            written += read.text.length;
          }
          return status;
        }),
      ),
    );
}
