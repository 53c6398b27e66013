/**
 * Mines (user-facing bug description, fix) pairs from bare git mirrors of allowed repositories and
 * writes them in the layout of ../shared/bench/swebench-dev.jsonl.gz without file contents (issue
 * text as `query`; the fixed source files as `gold` with the fix's gold/anchor lines; two
 * same-repository distractors); scripts/bugreports/build.ts adds the contents from the mirrors.
 *
 *   npx tsx scripts/bugreports/mine.ts --mirrors DIR --repos tox-dev/tox,pypa/setuptools,... \
 *     [--per-repo 120] --out data/bugreports/cases.jsonl.gz
 *
 * `DIR/<owner>+<name>/repo` is a bare mirror. A commit gives a case when, in that same commit,
 *  - a news fragment of a bug-fix kind is added (`changelog/123.bugfix.rst`, `CHANGES/123.bugfix`,
 *    `changelog.d/123.change.md` whose text reads as a fix ...): its text is the report; or
 *  - an entry reading as a fix is added to a changelog file (CHANGES.rst, CHANGELOG.md ...);
 * and it modifies 1-4 non-test source files (the gold files) by at most 200 changed lines.
 * The query is that text (markup roles and author credits removed) plus the commit body when the
 * body is prose; a case whose query names a gold file (its path or file name) is left out: the
 * report would give the answer away. Everything is read at the fix's parent commit (`base_commit`).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { hash32, splitLines } from '../../src/train/datasets.js';

/** Source languages by extension (the gold and distractor files). */
export const SOURCE_EXT: Record<string, string> = {
  py: 'python',
  ts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  rb: 'ruby',
  php: 'php',
  cs: 'csharp',
};

const FRAGMENT =
  /(^|\/)(changelog|changelog\.d|changes|newsfragments|news|changes\.d)\/[^/]*?(\d+)[^/]*\.(bugfix|bug|fix|fixed|change|changed)(\.\d+)?(\.(rst|md|txt))?$/i;
const CHANGELOG = /(^|\/)(changes|changelog|history|news|release-notes)(\.(rst|md|txt))?$/i;
const TEST_PATH =
  /(^|\/)(tests?|testing|spec|__tests__|benchmarks?|examples?|docs?)\/|(^|\/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.test\.\w+|[^/]*\.spec\.\w+|conftest\.py)$/i;
const VENDORED = /(^|\/)(vendor|_vendor|third_party|node_modules|dist|build)\//;
/** Words of a bug report: a fragment or entry without one reads as a feature or a chore. */
const BUG_WORDS =
  /\b(fix(e[sd])?|bug|crash(es|ed)?|error|exception|incorrect(ly)?|wrong|regression|no longer|broken|fail(s|ed|ure)?|raise[sd]?|traceback|instead of|properly|correctly|unexpected|hang|leak)\b/i;

export interface Hunk {
  old_start: number;
  old_len: number;
  lines: number[];
}

/** Old-side hunks of a `git diff -U0` for one file: gold = deleted/rewritten lines, anchors = lines around a pure insertion. */
export function parseHunks(diff: string, fileLines: number): { gold: number[]; anchor: number[]; hunks: Hunk[] } {
  const gold = new Set<number>();
  const anchor = new Set<number>();
  const hunks: Hunk[] = [];
  for (const m of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)) {
    const start = Number(m[1]);
    const len = m[2] === undefined ? 1 : Number(m[2]);
    const lines: number[] = [];
    if (len > 0) for (let i = start; i < start + len; i++) lines.push(i);
    else for (const i of [start, start + 1]) if (i >= 1 && i <= fileLines) lines.push(i);
    for (const i of lines) (len > 0 ? gold : anchor).add(i);
    hunks.push({ old_start: start, old_len: len, lines });
  }
  for (const g of gold) anchor.delete(g);
  return { gold: [...gold].sort((a, b) => a - b), anchor: [...anchor].sort((a, b) => a - b), hunks };
}

/** A news fragment or changelog entry as plain text: RST/Markdown roles, credits and PR references removed. */
/** Link definitions and bare "Fixes <url>" lines carry no description. */
const isReferenceLine = (l: string) =>
  /^\s*\[[^\]]+\]:\s*\S+$/.test(l) || /^\s*(fix(es|ed)?|close[sd]?|resolve[sd]?|see|refs?)?:?\s*(https?:\/\/\S+|#\d+)[.\s]*$/i.test(l);

export function cleanEntry(text: string): string {
  return (
    text
      .split('\n')
      .filter((l) => !isReferenceLine(l))
      .join('\n')
      .replace(/\s*[-–—]*\s*\bby\s+:user:`[^`]*`(\s*(,|and)\s*:user:`[^`]*`)*\.?/g, '')
      .replace(/(?::[a-z]+)*:([a-z]+):`([^`]*)`/g, (_m, role: string, v: string) =>
        ['user', 'issue', 'pr', 'gh', 'bug', 'commit'].includes(role)
          ? ''
          : `\`${v
              .replace(/^[~!]/, '')
              .replace(/<[^>]*>$/, '')
              .trim()}\``,
      )
      .replace(/\s*\(?https?:\/\/github\.com\/\S+\/(issues|pull)\/\d+\)?/g, '')
      .replace(/``([^`]+)``/g, '`$1`')
      // RST link targets (".. _issue 166: https://...") and their references
      .replace(/\.\.\s+_[^:]+:\s*\S+/g, '')
      .replace(/`([^`]+)`_/g, '$1')
      .replace(/`[^`<]*<https?:[^>]*>`_+/g, '')
      .replace(/\[#?\d+\]\([^)]*\)/g, '')
      .replace(/\(\s*(#\d+[,\s]*)+\)/g, '')
      .replace(/\s*[-–—]+\s*by\s+@?[\w-]+(\s*(,|and)\s*@?[\w-]+)*\.?\s*$/gim, '')
      .replace(/\bby\s+`?@[\w-]+`?/gi, '')
      .replace(/@[A-Za-z0-9][\w-]*/g, '')
      .replace(/^\s*[-*]\s+/gm, '')
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\s+([.,;])/g, '$1')
      .trim()
  );
}

/** The commit body when it is prose about the change (not a squash list, a PR checklist or trailers only). */
export function proseBody(body: string): string {
  const lines = body
    .split('\n')
    .filter((l) => !/^[\w-]+(-by|-authored-by|-of-by)?:\s/i.test(l) && !/^\s*(Signed-off-by|Co-authored-by|Reviewed-by)/i.test(l))
    .filter((l) => !/^\s*-\s*\[[ xX]\]/.test(l) && !/^\s*<!--/.test(l) && !isReferenceLine(l))
    // Mercurial-converted commits carry their metadata in the body
    .filter((l) => !/^(--HG--|branch : |extra : |committer: )/.test(l));
  const text = lines.join('\n').trim();
  if (text.length < 40 || text.length > 2500) return '';
  // a squash merge lists its commits as "* subject" lines
  if (lines.filter((l) => /^\* /.test(l)).length >= 2) return '';
  if (/^(#|\*\*)?\s*(Summary|Checklist|Description)/im.test(text) && /- \[/.test(body)) return '';
  return text;
}

interface Commit {
  hash: string;
  parent: string;
  subject: string;
  body: string;
  files: { status: string; path: string }[];
}

function git(gitDir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

function commits(gitDir: string): Commit[] {
  const out = git(gitDir, ['log', '--no-merges', '--no-renames', '--name-status', '--format=%x00%H%x01%P%x01%s%x01%b%x02', 'HEAD']);
  const list: Commit[] = [];
  for (const chunk of out.split('\0').slice(1)) {
    const [head, files = ''] = chunk.split('\x02');
    const [hash, parents, subject, body] = head!.split('\x01');
    const ps = parents!.trim().split(' ').filter(Boolean);
    if (ps.length !== 1) continue;
    list.push({
      hash: hash!,
      parent: ps[0]!,
      subject: subject!,
      body: body ?? '',
      files: files
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [status, path] = l.split('\t');
          return { status: status!, path: path! };
        }),
    });
  }
  return list;
}

const ext = (p: string) => p.split('.').pop()!.toLowerCase();
const isSource = (p: string) => SOURCE_EXT[ext(p)] !== undefined && !TEST_PATH.test(p) && !VENDORED.test(p) && !/(_pb2\.py|\.min\.js|\.d\.ts)$/.test(p);

/** The report text of a commit and where it came from, or null. */
function reportText(gitDir: string, c: Commit): { text: string; source: string } | null {
  for (const f of c.files) {
    if (f.status !== 'A' || !FRAGMENT.test(f.path)) continue;
    const text = cleanEntry(git(gitDir, ['show', `${c.hash}:${f.path}`]));
    const kind = FRAGMENT.exec(f.path)![4]!.toLowerCase();
    if (kind.startsWith('change') && !BUG_WORDS.test(text)) continue;
    if (text.length >= 25) return { text, source: `news fragment ${f.path}` };
  }
  for (const f of c.files) {
    if (f.status !== 'M' || !CHANGELOG.test(f.path)) continue;
    const diff = git(gitDir, ['diff', '-U0', c.parent, c.hash, '--', f.path]);
    const added = diff
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
      .map((l) => l.slice(1))
      .filter((l) => l.trim() && !/^(#+\s|[=~^-]{3,}$|Version |Unreleased|Released)/i.test(l.trim()));
    const removed = diff.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
    // a release chore rewrites headings; an entry is a few added lines
    if (removed > 2 || added.length === 0 || added.length > 12) continue;
    // one entry: several items in one commit mix the fix with other changes
    if (added.filter((l) => /^\s*[-*+] /.test(l)).length > 1) continue;
    // a section heading ("Fixed:", "***Added:***", "Deprecations/Removals:") says nothing about the bug
    const entry = added.filter((l) => !/^\W*[\w/ ]{1,30}:\W*$/.test(l.trim()));
    // a release names its version; a version-headed entry is a release note, not one fix
    if (added.some((l) => /^v?\d+\.\d+(\.\d+)?\b/.test(l.trim()) || /^(Bug ?fixes|Fixed|Features|Changes)\s*:?$/i.test(l.trim()))) continue;
    const text = cleanEntry(entry.join('\n'));
    if (text.length >= 25 && BUG_WORDS.test(text)) return { text, source: `changelog entry in ${f.path}` };
  }
  return null;
}

function main(): void {
  const { values: args } = parseArgs({
    options: {
      mirrors: { type: 'string' },
      repos: { type: 'string' },
      'per-repo': { type: 'string', default: '120' },
      'max-file-lines': { type: 'string', default: '3000' },
      out: { type: 'string' },
    },
  });
  if (!args.mirrors || !args.repos || !args.out) throw new Error('usage: --mirrors DIR --repos a/b,c/d --out FILE');
  const perRepo = Number(args['per-repo']);
  const maxFileLines = Number(args['max-file-lines']);
  const records: string[] = [];
  const counts: Record<string, Record<string, number>> = {};
  for (const repo of args.repos.split(',')) {
    const gitDir = join(args.mirrors, repo.replace('/', '+'), 'repo');
    const n: Record<string, number> = { commits: 0, withReport: 0, noGold: 0, tooBig: 0, namesFile: 0, kept: 0 };
    counts[repo] = n;
    const cases: { key: number; line: string }[] = [];
    for (const c of commits(gitDir)) {
      n.commits!++;
      const src = c.files.filter((f) => isSource(f.path));
      const hasReportFile = c.files.some((f) => FRAGMENT.test(f.path) || CHANGELOG.test(f.path));
      if (!hasReportFile) continue;
      const report = reportText(gitDir, c);
      if (!report) continue;
      n.withReport!++;
      const gold = src.filter((f) => f.status === 'M');
      if (gold.length === 0 || gold.length > 4 || src.length > gold.length + 1) {
        n.noGold!++;
        continue;
      }
      const body = proseBody(c.body);
      const query = body && !body.includes(report.text.slice(0, 40)) ? `${report.text}\n\n${body}` : report.text;
      if (gold.some((f) => query.includes(f.path) || query.includes(f.path.split('/').pop()!))) {
        n.namesFile!++;
        continue;
      }
      let changed = 0;
      const files: Record<string, unknown>[] = [];
      let ok = true;
      for (const f of gold) {
        const content = git(gitDir, ['show', `${c.parent}:${f.path}`]);
        const lines = splitLines(content);
        const diff = git(gitDir, ['diff', '-U0', c.parent, c.hash, '--', f.path]);
        const h = parseHunks(diff, lines.length);
        const bodyLines = diff.split('\n').filter((l) => /^[+-](?![+-]{2} )/.test(l));
        // a version bump is a release chore, not a fix
        if (bodyLines.every((l) => /__version__|\bversion\s*[=:]/i.test(l))) ok = false;
        changed += diff.split('\n').filter((l) => /^[+-][^+-]/.test(l) || l === '+' || l === '-').length;
        if (lines.length > maxFileLines || h.gold.length + h.anchor.length > Math.max(60, lines.length * 0.6)) ok = false;
        files.push({ path: f.path, role: 'gold', gold_lines: h.gold, anchor_lines: h.anchor, support_lines: [], hunks: h.hunks });
      }
      if (!ok || changed > 200 || changed === 0) {
        n.tooBig!++;
        continue;
      }
      // distractors: source files of the repository at the same commit, one from a gold file's folder when there is one
      const goldPaths = new Set(gold.map((f) => f.path));
      const tree = git(gitDir, ['ls-tree', '-r', '--name-only', c.parent])
        .split('\n')
        .filter((p) => p && isSource(p) && !goldPaths.has(p) && SOURCE_EXT[ext(p)] === SOURCE_EXT[ext(gold[0]!.path)]);
      const dir = gold[0]!.path.split('/').slice(0, -1).join('/');
      const order = (p: string) => hash32(`${c.hash}:${p}`);
      const same = tree.filter((p) => p.split('/').slice(0, -1).join('/') === dir).sort((a, b) => order(a) - order(b));
      const other = tree.filter((p) => !same.includes(p)).sort((a, b) => order(a) - order(b));
      const picks: string[] = [];
      for (const p of [...same.slice(0, 1), ...other, ...same.slice(1)]) {
        if (picks.length === 2) break;
        const len = splitLines(git(gitDir, ['show', `${c.parent}:${p}`])).length;
        if (len < 30 || len > maxFileLines) continue;
        picks.push(p);
        files.push({ path: p, role: 'distractor', gold_lines: [], anchor_lines: [], support_lines: [], hunks: [] });
      }
      const lang = SOURCE_EXT[ext(gold[0]!.path)]!;
      n.kept!++;
      cases.push({
        key: hash32(`case:${c.hash}`),
        line: JSON.stringify({
          id: `${repo}@${c.hash.slice(0, 12)}`,
          repo,
          base_commit: c.parent,
          fix_commit: c.hash,
          lang,
          task_type: 'issue-bug',
          text_source: report.source + (query !== report.text ? ' + commit body' : ''),
          query,
          files,
        }),
      });
    }
    // newest first in the log; cap per repository by a hash order so no period dominates
    cases.sort((a, b) => a.key - b.key);
    n.written = Math.min(cases.length, perRepo);
    records.push(...cases.slice(0, perRepo).map((x) => x.line));
    console.error(`${repo}: ${JSON.stringify(n)}`);
  }
  writeFileSync(args.out, gzipSync(`${records.join('\n')}\n`));
  console.error(`${records.length} cases -> ${args.out}`);
  console.log(JSON.stringify(counts));
}

if (process.argv[1]?.endsWith('mine.ts')) main();
