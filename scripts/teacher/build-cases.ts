/**
 * Turns teacher labels (data/teacher/labels.jsonl.gz: one query per line with `keep`/`support`
 * ranges over a file at a pinned commit) into training cases in the layout of
 * ../shared/data/teacher-train.jsonl.gz: the labelled file as `gold` (gold_lines = keep,
 * support_lines = support minus keep) and another labelled file of the same repository as
 * `distractor`. File contents come from bare git mirrors at the recorded commits
 * (`<mirrors>/<owner>+<name>/repo`, e.g. `git clone --mirror https://github.com/<owner>/<name>`).
 *
 *   npx tsx scripts/teacher/build-cases.ts [--labels data/teacher/labels.jsonl.gz] \
 *     [--review data/teacher/review.jsonl] [--goal-hints-only] --mirrors DIR --out .scratch/teacher-extra.jsonl.gz
 *
 * Labels that fail a check (a range outside the file, an empty answer, an unknown task type, a
 * missing mirror, an issue report that names the file) are left out and counted. One fault of the teacher is completed, and counted:
 * answer lines whose enclosing function/class/impl header is not in `keep` (the prompt asks for
 * those headers; a hand check found them missing in about 30% of labels) get the header lines
 * (start to end of a multi-line signature) from skim's own syntax index.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { readAllRecords } from '../../src/bench/cases.js';
import type { SyntaxIndex } from '../../src/core/types.js';
import { hash32, splitLines } from '../../src/train/datasets.js';
import { loadSyntaxSource } from '../../src/train/syntaxSource.js';

export const TASK_TYPES = new Set([
  'code-locate',
  'code-explain',
  'code-debug',
  'feature-addition',
  'code-refactor',
  'code-optimize',
  'find-relevant-part',
  'code-summarize',
  'issue-bug',
  'issue-feature',
]);

export interface TeacherLabel {
  repo: string;
  commit: string;
  path: string;
  lang: string;
  task_type: string;
  query: string;
  keep: [number, number][];
  support: [number, number][];
  rationale?: string;
  batch?: string;
}

/** 1-based inclusive ranges -> sorted unique line numbers; null when a range is malformed or outside 1..n. */
export function expandRanges(ranges: unknown, n: number): number[] | null {
  if (!Array.isArray(ranges)) return null;
  const out = new Set<number>();
  for (const r of ranges) {
    if (!Array.isArray(r) || r.length !== 2) return null;
    const [s, e] = r as number[];
    if (!Number.isInteger(s) || !Number.isInteger(e) || s! < 1 || e! < s! || e! > n) return null;
    for (let i = s!; i <= e!; i++) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

/** Why a label cannot be used, or null when it can. */
export function labelProblem(l: Partial<TeacherLabel>, fileLines: number): string | null {
  if (!l.repo || !l.commit || !l.path || !l.lang) return 'missing field';
  if (!TASK_TYPES.has(l.task_type ?? '')) return 'unknown task type';
  if (typeof l.query !== 'string' || l.query.trim().length < 15) return 'query too short';
  // an issue report must not point at the file (a traceback that names it gives the answer away)
  if (l.task_type!.startsWith('issue') && l.query.includes(l.path.split('/').pop()!)) return 'issue report names the file';
  const keep = expandRanges(l.keep, fileLines);
  if (!keep) return 'keep range outside the file';
  if (keep.length === 0) return 'empty keep';
  if (keep.length > Math.max(60, fileLines * 0.6)) return 'keep covers most of the file';
  if (!expandRanges(l.support ?? [], fileLines)) return 'support range outside the file';
  return null;
}

/** The header lines (0-based) of every definition enclosing an answer line that the answer lacks. */
export function missingHeaders(syntax: SyntaxIndex, answer: number[]): number[] {
  const have = new Set(answer);
  const add = new Set<number>();
  for (const i of answer) {
    for (const s of syntax.lines[i]?.scopes ?? []) {
      const sc = syntax.scopes[s];
      if (!sc?.isDefinition) continue;
      for (let j = sc.start; j <= sc.headerEnd; j++) if (!have.has(j)) add.add(j);
    }
  }
  return [...add].sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      labels: { type: 'string', default: 'data/teacher/labels.jsonl.gz' },
      review: { type: 'string', default: 'data/teacher/review.jsonl' },
      // leave out the issue reports (docs/experiments.md, "Training data")
      'goal-hints-only': { type: 'boolean', default: false },
      mirrors: { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (!args.out) throw new Error('missing --out');
  if (!args.mirrors) throw new Error('missing --mirrors');
  const { labels: labelsPath, review: reviewPath, 'goal-hints-only': goalHintsOnly, mirrors, out } = args;
  // labels the hand check found wrong are left out
  const rejected = new Set<string>();
  if (existsSync(reviewPath)) {
    for (const r of await readAllRecords<{ batch: string; path: string; query: string; verdict: string }>(reviewPath)) {
      if (r.verdict === 'bad') rejected.add(`${r.batch}\0${r.path}\0${r.query}`);
    }
  }
  const all = await readAllRecords<TeacherLabel>(labelsPath);
  const labels = all.filter((l) => !rejected.has(`${l.batch}\0${l.path}\0${l.query}`));

  const contents = new Map<string, string | null>();
  const content = (l: TeacherLabel): string | null => {
    const key = `${l.repo}@${l.commit}:${l.path}`;
    if (!contents.has(key)) {
      const gitdir = join(mirrors, l.repo.replace('/', '+'), 'repo');
      let text: string | null = null;
      if (existsSync(gitdir)) {
        try {
          text = execFileSync('git', ['--git-dir', gitdir, 'show', `${l.commit}:${l.path}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
        } catch {
          text = null;
        }
      }
      contents.set(key, text);
    }
    return contents.get(key)!;
  };

  // Distractors: the other labelled files of the same repository and commit.
  const filesByRepo = new Map<string, Set<string>>();
  for (const l of labels) {
    const k = `${l.repo}@${l.commit}`;
    filesByRepo.set(k, (filesByRepo.get(k) ?? new Set()).add(l.path));
  }

  const syntaxSource = await loadSyntaxSource();
  let headersAdded = 0;
  let labelsCompleted = 0;
  const problems = new Map<string, number>();
  const lines: string[] = [];
  let n = 0;
  for (const l of labels) {
    const text = content(l);
    const problem = text === null ? 'file not in a mirror' : labelProblem(l, splitLines(text).length);
    if (problem) {
      problems.set(problem, (problems.get(problem) ?? 0) + 1);
      continue;
    }
    const others = [...filesByRepo.get(`${l.repo}@${l.commit}`)!].filter((p) => p !== l.path).sort();
    const distractorPath = others.length ? others[hash32(`${l.repo}:${l.path}:${l.query}`) % others.length]! : null;
    const fileLines = splitLines(text!);
    await syntaxSource.prepare(l.lang);
    const answer = expandRanges(l.keep, Infinity)!;
    const headers = missingHeaders(
      syntaxSource.build(fileLines, l.lang),
      answer.map((x) => x - 1),
    ).map((x) => x + 1);
    headersAdded += headers.length;
    if (headers.length) labelsCompleted++;
    const gold = [...answer, ...headers].sort((a, b) => a - b);
    const goldSet = new Set(gold);
    const support = expandRanges(l.support ?? [], Infinity)!.filter((x) => !goldSet.has(x));
    const files = [{ path: l.path, role: 'gold', content: text!, gold_lines: gold, anchor_lines: [], support_lines: support, hunks: [] }];
    const distractor = distractorPath ? content({ ...l, path: distractorPath }) : null;
    if (distractorPath && distractor !== null) {
      files.push({ path: distractorPath, role: 'distractor', content: distractor, gold_lines: [], anchor_lines: [], support_lines: [], hunks: [] });
    }
    // numbered among all cases, so a goal-hints-only build keeps the ids of the full one
    const id = `${l.repo}#x${n++}`;
    if (goalHintsOnly && l.task_type.startsWith('issue')) continue;
    lines.push(
      JSON.stringify({
        id,
        repo: l.repo,
        base_commit: l.commit,
        lang: l.lang,
        task_type: l.task_type,
        query: l.query,
        files,
      }),
    );
  }
  writeFileSync(out, out.endsWith('.gz') ? gzipSync(lines.join('\n') + '\n') : lines.join('\n') + '\n');
  if (rejected.size) problems.set('rejected by the hand check', all.filter((l) => rejected.has(`${l.batch}\0${l.path}\0${l.query}`)).length);
  const dropped = [...problems].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  console.error(
    `${lines.length} cases from ${labels.length} labels -> ${out}; left out: ${dropped}; enclosing headers added: ${headersAdded} lines to ${labelsCompleted} labels`,
  );
}

if (process.argv[1]?.endsWith('build-cases.ts')) await main();
