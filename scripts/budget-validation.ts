/**
 * Budget-mode recall on validation data only, for choosing budget-mode rules without tuning on
 * the benchmarks: `prune()` at ratio 4 and 8 over the held-back teacher queries' gold files
 * (their answer lines), 400 commit samples of commits val (gold ∪ anchor lines) and a third of
 * the bug-report cases' gold files (fix lines; built by `npx tsx scripts/bugreports/build.ts
 * --mirrors DIR --out .scratch/bugreports-train.jsonl.gz`, skipped when absent).
 *
 *   npx tsx scripts/budget-validation.ts [--sets teacher,commits,bugs] [--unit tokens|chars]
 *
 * Prints micro recall per set and budget and their sum (docs/experiments.md, "Selection and
 * budget mode"). `--unit chars` gives each file a budget in characters (`maxChars`, what `skim cat
 * --max-chars` and the harness's limit use): its length over the ratio.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { prune } from '../src/core/prune.js';
import { type CommitFilterStats, isTeacherValRepo, type LabeledFile, readCases, readCommits } from '../src/train/datasets.js';

const BUG_CASES = '.scratch/bugreports-train.jsonl.gz';
const { values } = parseArgs({
  options: { sets: { type: 'string', default: 'teacher,commits,bugs' }, unit: { type: 'string', default: 'tokens' } },
});
if (values.unit !== 'tokens' && values.unit !== 'chars') throw new Error(`--unit: tokens or chars, not ${values.unit}`);
const wanted = new Set(values.sets.split(','));

const sets: [string, LabeledFile[]][] = [];
if (wanted.has('teacher')) {
  const files = await readCases('../shared/data/teacher-train.jsonl.gz', 'teacher');
  sets.push(['teacher', files.filter((f) => isTeacherValRepo(f.repo) && f.role === 'gold' && f.agg.length > 0)]);
}
if (wanted.has('commits')) {
  const stats: CommitFilterStats = { total: 0, noLabels: 0, vagueMessage: 0, hugeDiff: 0, tooShort: 0, kept: 0 };
  const files = await readCommits('../shared/data/commits.jsonl.gz', { maxTrain: 0, maxVal: 400 }, stats);
  sets.push(['commits', files.filter((f) => f.split === 'val')]);
}
if (wanted.has('bugs') && existsSync(BUG_CASES)) {
  const files = (await readCases(BUG_CASES, 'swebench')).filter((f) => f.role === 'gold' && f.agg.length > 0);
  sets.push(['bugs', files.filter((_, k) => k % 3 === 0)]);
}

let sum = 0;
for (const [name, files] of sets) {
  const figures: string[] = [];
  for (const ratio of [4, 8]) {
    let labelled = 0;
    let kept = 0;
    for (const f of files) {
      const code = `${f.lines.join('\n')}\n`;
      const budget = values.unit === 'chars' ? { maxChars: Math.floor(code.length / ratio) } : { ratio };
      const r = await prune({ code, query: f.query, language: f.lang, ...budget });
      for (const line of f.agg) {
        labelled++;
        if (r.keepMask[line]) kept++;
      }
    }
    figures.push(`${ratio}x ${(kept / labelled).toFixed(3)}`);
    sum += kept / labelled;
  }
  console.log(`${name} (${files.length} files): ${figures.join(', ')}`);
}
console.log(`sum ${sum.toFixed(3)}`);
