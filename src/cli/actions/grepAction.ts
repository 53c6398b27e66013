/**
 * `skim grep PATTERN [PATH...] [--focus Q]`: a recursive `grep -n` (RE2 regular expressions,
 * matched in linear time; no shell, no grep binary), pruned for the goal hint. Exit status as grep:
 * 0 = matches, 1 = none, 2 = error.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { grepFiles } from '../../tools/fileTools.js';
import { action, parseCount, parseRatio, parseTokens, prunerFor, warn, writeOut } from '../io.js';
import { type SessionFlags, taskOf, withSession } from '../session.js';

interface GrepFlags extends SessionFlags {
  focus?: string;
  glob?: string;
  ignoreCase?: boolean;
  fixedStrings?: boolean;
  context?: number;
  maxCount?: number;
  ratio?: number;
  tokens?: number;
  scorer?: string;
  model?: string;
}

export function registerGrep(program: Command): void {
  program
    .command('grep')
    .description('search files like `grep -rn`, pruned to what the --focus question needs')
    .argument('<pattern>', 'regular expression (RE2 syntax, as in ripgrep: no lookaround or backreferences)')
    .argument('[paths...]', 'files or directories (default: .)')
    .option('-f, --focus <question>', 'goal hint: a complete question about the logic you need')
    .option('-g, --glob <glob>', 'only files matching this glob, e.g. "*.py" or "src/**/*.ts"')
    .option('-i, --ignore-case', 'case-insensitive match')
    // grep habits: line numbers are always shown and directories always searched
    .option('-n, --line-number', 'accepted for grep compatibility (line numbers are always shown)')
    .option('-r, --recursive', 'accepted for grep compatibility (directories are always searched)')
    .option('-R, --dereference-recursive', 'accepted for grep compatibility (same as -r)')
    .option('-F, --fixed-strings', 'pattern is a literal string')
    .option('-C, --context <n>', 'lines of context around each match', parseCount)
    .option('-m, --max-count <n>', 'stop after n matching lines in total', parseCount)
    .option('--ratio <n>', 'budget: at most 1/n of the tokens', parseRatio)
    .option('-t, --tokens <n>', 'budget: at most n tokens', parseTokens)
    .option('--session <id>', 'session memory: remember what this search showed (default: $SKIM_SESSION)')
    .option('--task <text>', "the run's overall task, scored next to --focus (default: $SKIM_TASK)")
    .option('--scorer <name>', 'learned (default) or heuristic')
    .option('--model <dir>', 'model weights directory')
    .action(action(async (pattern: string, paths: string[], flags: GrepFlags) => withSession(flags, async (session) => {
      try {
        const pruner = prunerFor(flags);
        const res = await grepFiles(pattern, paths, {
          glob: flags.glob,
          ignoreCase: flags.ignoreCase,
          fixedStrings: flags.fixedStrings,
          context: flags.context,
          maxMatches: flags.maxCount,
        });
        for (const e of res.errors) process.stderr.write(`skim grep: ${e}\n`);
        if (res.truncated) warn(`stopped after ${res.matches} matches`);
        if (res.matches === 0) return 1;
        if (!flags.focus && !session && flags.ratio === undefined && flags.tokens === undefined) {
          await writeOut(res.output);
          return 0;
        }
        const result = await pruner.prune({ code: res.output, query: flags.focus, task: taskOf(flags), ratio: flags.ratio, tokens: flags.tokens, session });
        for (const w of result.warnings) if (!w.startsWith('no query')) warn(w);
        await writeOut(result.text);
        return 0;
      } catch (err) {
        if (err instanceof SkimError) {
          process.stderr.write(`skim grep: ${err.message}\n`);
          return 2;
        }
        throw err;
      }
    })));
}
