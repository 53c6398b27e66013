/**
 * Bug-report cases -> training cases. `data/bugreports/cases.jsonl.gz` stores every mined case
 * without file contents (repository, commits, the report text and where it came from, the gold
 * files' fix lines, the distractor paths); this fills the contents in from bare git mirrors at
 * the case's `base_commit` and applies the teacher labels of `data/bugreports/labels.jsonl`:
 * for a labelled gold file, gold_lines = the fix's deleted/rewritten lines ∪ the teacher's `keep`
 * (lines an engineer reads to make the fix) ∪ the headers of their enclosing definitions, and
 * support_lines = the teacher's `support` minus those. Unlabelled files keep the fix lines alone
 * as swebench-dev has them. The output has the layout of
 * ../shared/data/teacher-train.jsonl.gz and is what `skim train --data` takes.
 *
 *   npx tsx scripts/bugreports/build.ts --mirrors DIR [--labelled-only] --out .scratch/bugreports-train.jsonl.gz
 *
 * A label whose range lies outside the file is an error (the labels were checked against the
 * files at these commits).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { readAllRecords } from '../../src/bench/cases.js';
import { splitLines } from '../../src/train/datasets.js';
import { loadSyntaxSource } from '../../src/train/syntaxSource.js';
import { expandRanges, missingHeaders } from '../teacher/build-cases.js';

export interface StoredFile {
  path: string;
  role: 'gold' | 'distractor';
  gold_lines: number[];
  anchor_lines: number[];
  hunks: unknown[];
}

export interface StoredCase {
  id: string;
  repo: string;
  base_commit: string;
  fix_commit: string;
  lang: string;
  task_type: string;
  text_source: string;
  query: string;
  files: StoredFile[];
}

export interface BugLabel {
  id: string;
  path: string;
  keep: [number, number][];
  support: [number, number][];
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      cases: { type: 'string', default: 'data/bugreports/cases.jsonl.gz' },
      labels: { type: 'string', default: 'data/bugreports/labels.jsonl' },
      mirrors: { type: 'string' },
      'labelled-only': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  if (!args.mirrors || !args.out) throw new Error('usage: --mirrors DIR --out FILE');
  const cases = await readAllRecords<StoredCase>(args.cases);
  const labels = new Map<string, BugLabel>();
  for (const l of await readAllRecords<BugLabel>(args.labels)) labels.set(`${l.id}\0${l.path}`, l);
  const syntax = await loadSyntaxSource();
  const out: string[] = [];
  let labelled = 0;
  let headers = 0;
  for (const c of cases) {
    const gitDir = join(args.mirrors, c.repo.replace('/', '+'), 'repo');
    const isLabelled = c.files.some((f) => labels.has(`${c.id}\0${f.path}`));
    if (args['labelled-only'] && !isLabelled) continue;
    const files = [];
    for (const f of c.files) {
      const content = execFileSync('git', ['--git-dir', gitDir, 'show', `${c.base_commit}:${f.path}`], { encoding: 'utf8', maxBuffer: 1 << 28 });
      if (f.role === 'distractor') {
        files.push({ ...f, content, support_lines: [] });
        continue;
      }
      const lines = splitLines(content);
      const label = labels.get(`${c.id}\0${f.path}`);
      const keep = label ? expandRanges(label.keep, lines.length) : [];
      const support = label ? expandRanges(label.support, lines.length) : [];
      if (!keep || !support) throw new Error(`${c.id} ${f.path}: a label range lies outside the file`);
      if (label) labelled++;
      const answer = [...new Set([...f.gold_lines, ...keep])].sort((a, b) => a - b);
      await syntax.prepare(c.lang);
      // the teacher's answers include their enclosing headers (the prompt asks for them); fix lines alone stay as swebench-dev has them
      const added = label
        ? missingHeaders(
            syntax.build(lines, c.lang),
            [...answer, ...f.anchor_lines].map((x) => x - 1),
          ).map((x) => x + 1)
        : [];
      headers += added.length;
      const gold = [...new Set([...answer, ...added])].sort((a, b) => a - b);
      const goldSet = new Set([...gold, ...f.anchor_lines]);
      files.push({ ...f, content, gold_lines: gold, support_lines: support.filter((x) => !goldSet.has(x)) });
    }
    out.push(JSON.stringify({ ...c, files }));
  }
  writeFileSync(args.out, gzipSync(`${out.join('\n')}\n`));
  console.error(`${out.length} cases (${labelled} teacher-labelled gold files, ${headers} enclosing header lines added) -> ${args.out}`);
}

if (process.argv[1]?.endsWith('build.ts')) await main();
