/** A throwaway git repository built by scripted commits, for the mining tests. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TestRepo {
  dir: string;
  write(path: string, content: string | Buffer): void;
  commit(message: string, opts?: { allowEmptyMessage?: boolean }): string;
  git(...args: string[]): string;
}

export function createTestRepo(): TestRepo {
  const dir = mkdtempSync(join(tmpdir(), 'skim-mine-'));
  let tick = 0;
  const git = (...args: string[]): string => {
    const date = `${1700000000 + tick * 60} +0000`;
    return execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
      },
    });
  };
  git('init', '-q', '-b', 'main');
  return {
    dir,
    git,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    commit(message, opts = {}) {
      tick++;
      git('add', '-A');
      git('commit', '-q', ...(opts.allowEmptyMessage ? ['--allow-empty-message'] : []), '-m', message);
      return git('rev-parse', 'HEAD').trim();
    },
  };
}

export const numbered = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i + 1} = ${i + 1}`);

/**
 * A repository of `commits` commits made with `git fast-import` (fast: no work tree writes),
 * each rewriting a few lines of one of `files` Python modules, with messages naming what changed.
 */
export function createHistoryRepo(commits: number, files = 12): string {
  const dir = mkdtempSync(join(tmpdir(), 'skim-hist-'));
  execFileSync('git', ['-C', dir, 'init', '-q', '-b', 'main']);
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const content: string[][] = Array.from({ length: files }, (_, f) =>
    Array.from({ length: 60 }, (_, j) => (j % 10 === 0 ? `def handler_${f}_${j}(value):` : `    total_${j} = value + ${j}`)),
  );
  const parts: string[] = [];
  const data = (s: string) => parts.push(`data ${Buffer.byteLength(s)}\n${s}\n`);
  for (let c = 0; c < commits; c++) {
    parts.push(`commit refs/heads/main\ncommitter T <t@example.com> ${1600000000 + c * 60} +0000\n`);
    const f = Math.floor(rand() * files);
    const j = 1 + Math.floor(rand() * 58);
    if (c > 0) content[f][j] = `    total_${j} = value * ${c}  # scaled`;
    data(c === 0 ? 'Initial import' : `Scale total ${j} of handler module ${f} by the commit factor`);
    const changed = c === 0 ? content.map((_, k) => k) : [f];
    for (const k of changed) {
      parts.push(`M 100644 inline pkg/module_${k}.py\n`);
      data(content[k].join('\n') + '\n');
    }
  }
  parts.push('done\n');
  execFileSync('git', ['-C', dir, 'fast-import', '--done', '--quiet'], { input: parts.join('') });
  return dir;
}

/** A history repository (createHistoryRepo) and a scratch directory for one test suite; `remove` deletes both. */
export function createHistoryFixture(commits: number, tmpPrefix: string): { repo: string; tmp: string; remove: () => void } {
  const repo = createHistoryRepo(commits);
  const tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
  const remove = () => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  };
  return { repo, tmp, remove };
}
