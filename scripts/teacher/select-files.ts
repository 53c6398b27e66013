/**
 * Chooses the files a teacher model labels: source files of 80-700 lines from git mirrors of the
 * repositories allowed for training (../shared/data/training-repos.md), at each mirror's HEAD
 * commit, tests, vendored code and generated files left out, in a fixed order (hash of
 * repo:path) so the same mirrors give the same choice. Writes one JSON line per batch of four
 * files of one repository: {batch, repo, gitdir, commit, lang, files: [{path, lines}]}.
 *
 *   npx tsx scripts/teacher/select-files.ts --mirrors DIR --per-repo 16 --out batches.jsonl [owner/name ...]
 *
 * `--exclude earlier.jsonl` leaves out the files of an earlier choice (a second round takes the
 * next files in the same order: run it with a larger --per-repo).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const LANG_BY_EXT: Record<string, string> = {
  py: 'python',
  ts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  rb: 'ruby',
  php: 'php',
  cs: 'c_sharp',
};
const SKIP =
  /(^|\/)(tests?|spec|specs|__tests__|testing|testdata|test_data|fixtures?|examples?|docs?|benchmarks?|bench|vendor|third_party|node_modules|dist|build|scripts|tools|samples?)\//i;
const SKIP_NAME = /(^|\/)(test_[^/]*|[^/]*_test\.[a-z]+|[^/]*\.(test|spec|d)\.[a-z]+|[^/]*Tests?\.(java|kt|cs)|conftest\.py|setup\.py|__init__\.py)$/;
const MIN_LINES = 80;
const MAX_LINES = 700;

const { values: args, positionals: wanted } = parseArgs({
  options: {
    mirrors: { type: 'string' },
    'per-repo': { type: 'string', default: '16' },
    out: { type: 'string' },
    exclude: { type: 'string', default: '' },
  },
  allowPositionals: true,
});
if (!args.out) throw new Error('missing --out');
if (!args.mirrors) throw new Error('missing --mirrors');
const { mirrors, out, exclude: excludeFile } = args;
const perRepo = Number(args['per-repo']);
const excluded = new Set<string>();
if (excludeFile) {
  for (const line of readFileSync(excludeFile, 'utf8').split('\n').filter(Boolean)) {
    const b = JSON.parse(line) as { repo: string; files: { path: string }[] };
    for (const f of b.files) excluded.add(`${b.repo}:${f.path}`);
  }
}

const git = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });

const lines: string[] = [];
for (const dir of readdirSync(mirrors).sort()) {
  const repo = dir.replace('+', '/');
  if (wanted.length && !wanted.includes(repo)) continue;
  const gitdir = join(mirrors, dir, 'repo');
  if (!existsSync(gitdir)) continue;
  const commit = git(gitdir, 'rev-parse', 'HEAD').trim();
  const candidates: { path: string; lang: string; lines: number; key: string }[] = [];
  for (const entry of git(gitdir, 'ls-tree', '-r', '-l', commit).split('\n')) {
    const m = /^\d+ blob [0-9a-f]+\s+(\d+)\t(.+)$/.exec(entry);
    if (!m) continue;
    const [, size, path] = m;
    const lang = LANG_BY_EXT[path!.split('.').pop()!.toLowerCase()];
    if (!lang || SKIP.test(path!) || SKIP_NAME.test(path!) || Number(size) > 60_000) continue;
    candidates.push({ path: path!, lang, lines: 0, key: createHash('sha1').update(`${repo}:${path}`).digest('hex') });
  }
  // A repository written in C++ keeps its headers in .h files too.
  if (candidates.some((c) => c.lang === 'cpp')) for (const c of candidates) if (c.lang === 'c') c.lang = 'cpp';
  candidates.sort((a, b) => (a.key < b.key ? -1 : 1));
  const chosen: typeof candidates = [];
  for (const c of candidates) {
    if (chosen.length >= perRepo) break;
    if (excluded.has(`${repo}:${c.path}`)) {
      chosen.push({ ...c, lines: -1 });
      continue;
    }
    const text = git(gitdir, 'show', `${commit}:${c.path}`);
    if (/generated|do not edit/i.test(text.slice(0, 400))) continue;
    c.lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (c.lines >= MIN_LINES && c.lines <= MAX_LINES) chosen.push(c);
  }
  // Batches of four files of one language (files of the excluded choice count towards --per-repo)
  chosen.splice(0, chosen.length, ...chosen.filter((c) => c.lines >= 0));
  // Batches of four files of one language (a repository may mix, e.g. Java and Kotlin).
  const byLang = new Map<string, typeof chosen>();
  for (const c of chosen) byLang.set(c.lang, [...(byLang.get(c.lang) ?? []), c]);
  for (const [lang, files] of byLang) {
    for (let i = 0; i + 2 <= files.length; i += 4) {
      const part = files.slice(i, i + 4);
      lines.push(
        JSON.stringify({
          batch: `${dir}-${lang}-${excludeFile ? 'r2-' : ''}${i / 4}`,
          repo,
          gitdir,
          commit,
          lang,
          files: part.map((f) => ({ path: f.path, lines: f.lines })),
        }),
      );
    }
  }
}
writeFileSync(out, lines.join('\n') + '\n');
console.error(`${lines.length} batches -> ${out}`);
