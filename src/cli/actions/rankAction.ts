/**
 * `skim rank --query Q FILE...`: order files by relevance to a question (the document score of
 * prune), most relevant first. Prints "score<TAB>path" lines, or JSON with --json.
 */
import type { Command } from 'commander';
import { SkimError } from '../../core/errors.js';
import { readTextFile } from '../../tools/fileTools.js';
import { action, cliLog, intAtLeast, numberOption, prunerFor, scorerOptions, writeOut } from '../io.js';

interface RankFlags {
  query: string;
  top?: number;
  json?: boolean;
  scorer?: string;
  model?: string;
}

export function registerRank(program: Command): void {
  const command = program
    .command('rank')
    .description('order files by relevance to a question, most relevant first')
    .argument('<files...>', 'files to rank')
    .requiredOption('-q, --query <question>', 'what you are looking for, as a complete question')
    .option('--top <n>', 'print only the n most relevant files', numberOption(intAtLeast(1)))
    .option('--json', 'print JSON: [{ path, score, tokensIn }]');
  scorerOptions(command).action(action(rankCommand));
}

async function rankCommand(files: string[], flags: RankFlags): Promise<void> {
  if (flags.query.trim() === '') throw new SkimError('--query must not be empty', 'EUSAGE');
  const pruner = prunerFor(flags);
  const { rankDocuments } = await import('../../server/rank.js');
  const docs = await Promise.all(files.map(readDocument));
  let ranked = await rankDocuments((req) => pruner.prune(req), flags.query, docs, { concurrency: 1 });
  if (flags.top) ranked = ranked.slice(0, flags.top);
  if (flags.json) {
    const out = ranked.map((r) => ({ path: r.path, score: r.score, tokensIn: r.tokensIn, ...(r.error ? { error: r.error } : {}) }));
    await writeOut(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  await writeOut(ranked.map((r) => `${r.score.toFixed(4)}\t${r.path}\n`).join(''));
  for (const r of ranked) if (r.error) cliLog().warn(`skim: rank: ${r.path}: ${r.error}`);
}

async function readDocument(path: string): Promise<{ path: string; code: string }> {
  return { path, code: (await readTextFile(path)).text };
}
