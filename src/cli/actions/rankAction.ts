/**
 * `skim rank --query Q FILE...`: order files by relevance to a question (the document score of
 * prune), most relevant first. Prints "score<TAB>path" lines, or JSON with --json.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { readFile, stat } from 'node:fs/promises';
import { createPruner, SkimError } from '../../index.js';
import { rankDocuments } from '../../server/rank.js';

interface RankOptions {
  query: string;
  top?: number;
  json?: boolean;
  scorer: 'heuristic' | 'learned';
}

export function registerRank(program: Command): void {
  program
    .command('rank')
    .description('order files by relevance to a question, most relevant first')
    .argument('<file...>', 'files to rank')
    .requiredOption('-q, --query <question>', 'what you are looking for, as a complete question')
    .option('--top <n>', 'print only the n most relevant files', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('--top must be an integer >= 1');
      return n;
    })
    .option('--json', 'print JSON: [{ path, score, tokensIn }]')
    .option('--scorer <name>', 'heuristic or learned', 'learned')
    .action(async (files: string[], opts: RankOptions) => {
      if (opts.query.trim() === '') throw new SkimError('--query must not be empty', 'EUSAGE');
      const docs = await Promise.all(files.map(readDocument));
      const pruner = createPruner({ scorer: opts.scorer === 'heuristic' ? 'heuristic' : 'learned' });
      let ranked = await rankDocuments((req) => pruner.prune(req), opts.query, docs, { concurrency: 1 });
      if (opts.top) ranked = ranked.slice(0, opts.top);
      if (opts.json) {
        const out = ranked.map((r) => ({ path: r.path, score: r.score, tokensIn: r.tokensIn, ...(r.error ? { error: r.error } : {}) }));
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      for (const r of ranked) process.stdout.write(`${r.score.toFixed(4)}\t${r.path}\n`);
      for (const r of ranked) if (r.error) process.stderr.write(`skim rank: ${r.path}: ${r.error}\n`);
    });
}

async function readDocument(path: string): Promise<{ path: string; code: string }> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new SkimError(`${path}: no such file`, 'ENOINPUT');
  }
  if (info.isDirectory()) throw new SkimError(`${path}: is a directory`, 'EISDIR');
  return { path, code: await readFile(path, 'utf8') };
}
