import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanMessage, isReleaseChore, rejectPath, splitOf } from '../../src/data/commitFilters.js';
import { chooseWindow, labelsFromHunks } from '../../src/data/commitLabels.js';
import { type CommitSample, type MineStats, mineRepository } from '../../src/data/mine.js';
import { createTestRepo, numbered, type TestRepo } from './gitRepo.js';

const lines = (a: string[]) => a.join('\n') + '\n';

describe('labels from hunks', () => {
  it('marks rewritten/deleted old lines gold and the neighbours of pure insertions as anchors', () => {
    const l = labelsFromHunks(
      [
        { oldStart: 3, oldCount: 1, newStart: 3, newCount: 1 },
        { oldStart: 6, oldCount: 2, newStart: 5, newCount: 0 },
        { oldStart: 9, oldCount: 0, newStart: 9, newCount: 2 },
        { oldStart: 0, oldCount: 0, newStart: 1, newCount: 1 },
        { oldStart: 12, oldCount: 0, newStart: 13, newCount: 1 },
      ],
      12,
    );
    expect(l.gold).toEqual([3, 6, 7]);
    expect(l.anchors).toEqual([1, 9, 10, 12]);
  });
  it('centres the densest group of labelled lines in the window and clamps it to the file', () => {
    expect(chooseWindow([700], 1000, 300)).toBe(551);
    expect(chooseWindow([5, 990], 1000, 300)).toBe(1); // tie: the first group; clamped at the top
    expect(chooseWindow([995], 1000, 300)).toBe(701);
    expect(chooseWindow([10, 500, 520, 530], 1000, 300)).toBe(500 - Math.floor((300 - 31) / 2));
    expect(chooseWindow([10], 200, 300)).toBe(1);
  });
});

describe('message and path filters', () => {
  it('removes trailers but keeps the body', () => {
    expect(cleanMessage('Fix the parser\n\nLonger body.\n\nSigned-off-by: A <a@b>\nCo-authored-by: C <c@d>\n')).toBe('Fix the parser\n\nLonger body.');
    expect(cleanMessage('Fix: thing\n\nSee: the docs for why this is needed in the parser')).toContain('See: the docs');
  });
  it('recognises release chores and not ordinary fixes', () => {
    for (const m of [
      'Bump version to 1.2.3',
      'v2.0.0',
      'Release 3.1',
      'chore(release): 1.4.0',
      'Bump requests from 2.1.0 to 2.2.0',
      'chore(deps): update eslint',
    ])
      expect(isReleaseChore(m), m).toBe(true);
    for (const m of ['Fix off-by-one in the version parser', 'Add release notes builder API', 'Handle bumps in the road'])
      expect(isReleaseChore(m), m).toBe(false);
  });
  it('drops vendored, lock, generated and minified paths only', () => {
    expect(rejectPath('vendor/lib/x.go')).toBe('vendored');
    expect(rejectPath('web/node_modules/a/index.js')).toBe('vendored');
    expect(rejectPath('package-lock.json')).toBe('lockfile');
    expect(rejectPath('go.sum')).toBe('lockfile');
    expect(rejectPath('api/v1/service_pb2.py')).toBe('generated');
    expect(rejectPath('static/app.min.js')).toBe('minified');
    expect(rejectPath('conans/client/build/cmake.py')).toBeNull();
    expect(rejectPath('src/core/prune.ts')).toBeNull();
  });
  it('splits by commit hash, 1 in 20 to val', () => {
    expect(splitOf('00000014aa')).toBe('val');
    expect(splitOf('00000015aa')).toBe('train');
  });
});

describe('skim data mine on a scripted repository', () => {
  let repo: TestRepo;
  let samples: CommitSample[];
  let stats: MineStats;
  const shas: Record<string, string> = {};
  const a = numbered('a', 10);
  const b = numbered('b', 1000);

  beforeAll(async () => {
    repo = createTestRepo();
    repo.write('a.py', lines(a));
    repo.write('b.py', lines(b));
    repo.write('c.ts', lines(numbered('const c', 5)));
    repo.write('vendor/x.py', 'x = 1\n');
    repo.write('package-lock.json', '{}\n');
    repo.write('data.json', '{"a": 1}\n');
    repo.write('img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    shas.root = repo.commit('Initial import');

    // rewrite line 3, delete lines 6-7, insert two lines after line 9; noise files change too
    const a2 = [...a];
    a2[2] = 'a3 = 33';
    a2.splice(5, 2);
    a2.splice(7, 0, 'new1 = 1', 'new2 = 2'); // after old line 9 (now index 7)
    repo.write('a.py', lines(a2));
    repo.write('vendor/x.py', 'x = 2\n');
    repo.write('package-lock.json', '{"v": 2}\n');
    repo.write('data.json', '{"a": 2}\n');
    repo.write('img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 3, 4]));
    shas.fix = repo.commit('Fix the parser state\n\nThe state leaked across calls.\n\nSigned-off-by: T <t@example.com>');

    repo.write('a.py', lines([...a2, 'version = "1.2.3"']));
    shas.bump = repo.commit('Bump version to 1.2.3');

    // a far-down change in a long file: a 300-line window around it; an insertion at the top of c.ts
    const b2 = [...b];
    b2[699] = 'b700 = 7000';
    repo.write('b.py', lines(b2));
    repo.write('c.ts', lines(['// header', ...numbered('const c', 5)]));
    shas.window = repo.commit('Change the seven hundredth constant of b');

    repo.write('a.py', lines([...a2, 'version = "1.2.3"', 'z = 0']));
    shas.empty = repo.commit('', { allowEmptyMessage: true });

    // a merge: a side branch commit plus a --no-ff merge
    repo.git('checkout', '-q', '-b', 'side');
    repo.write('c.ts', lines(['// header', ...numbered('const c', 4), 'const c5 = 55;']));
    shas.side = repo.commit('Make the fifth constant larger on a branch');
    repo.git('checkout', '-q', 'main');
    repo.git('merge', '-q', '--no-ff', '-m', 'Merge branch side', 'side');

    const out = join(repo.dir, 'out.jsonl');
    stats = await mineRepository({ repo: repo.dir, out, name: 'test/repo' });
    samples = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as CommitSample);
  });
  afterAll(() => rmSync(repo.dir, { recursive: true, force: true }));

  it('writes the exact field set and order of commits.jsonl.gz', () => {
    expect(Object.keys(samples[0])).toEqual([
      'repo',
      'commit',
      'time',
      'path',
      'lang',
      'query',
      'window_start',
      'code',
      'gold_lines',
      'anchor_lines',
      'file_lines',
      'split',
    ]);
  });

  it('labels the rewritten/deleted lines gold and the insertion neighbours anchors, on the file before the commit', () => {
    const s = samples.find((x) => x.commit === shas.fix && x.path === 'a.py')!;
    expect(s).toBeDefined();
    expect(s.code).toBe(lines(a));
    expect(s.gold_lines).toEqual([3, 6, 7]);
    expect(s.anchor_lines).toEqual([9, 10]);
    expect(s.window_start).toBe(1);
    expect(s.file_lines).toBe(10);
    expect(s.lang).toBe('python');
    expect(s.query).toBe('Fix the parser state\n\nThe state leaked across calls.');
    expect(s.repo).toBe('test/repo');
    expect(s.time).toBe(1700000000 + 2 * 60);
    expect(s.split).toBe(parseInt(shas.fix.slice(0, 8), 16) % 20 === 0 ? 'val' : 'train');
  });

  it('cuts a window of 300 lines around a change in a long file, labels relative to it', () => {
    const s = samples.find((x) => x.commit === shas.window && x.path === 'b.py')!;
    expect(s.window_start).toBe(551);
    expect(s.file_lines).toBe(1000);
    expect(s.gold_lines).toEqual([150]);
    const w = s.code.split('\n');
    expect(w.length).toBe(301); // 300 lines + trailing newline
    expect(w[149]).toBe('b700 = 700');
    const c = samples.find((x) => x.commit === shas.window && x.path === 'c.ts')!;
    expect(c.gold_lines).toEqual([]);
    expect(c.anchor_lines).toEqual([1]);
    expect(c.lang).toBe('typescript');
  });

  it('drops noise and counts why', () => {
    expect(stats.commits.dropped.merge).toBe(1);
    expect(stats.commits.dropped.root).toBe(1);
    expect(stats.commits.dropped.releaseChore).toBe(1);
    expect(stats.commits.dropped.emptyMessage).toBe(1);
    expect(stats.files.dropped.vendored).toBe(1);
    expect(stats.files.dropped.lockfile).toBe(1);
    expect(stats.files.dropped.unknownLanguage).toBe(1);
    expect(stats.files.dropped.binary).toBe(1);
    expect(samples.some((x) => x.commit === shas.bump || x.commit === shas.empty || x.commit === shas.root)).toBe(false);
    expect(samples.map((x) => `${x.commit.slice(0, 7)}:${x.path}`).sort()).toEqual(
      [`${shas.fix.slice(0, 7)}:a.py`, `${shas.window.slice(0, 7)}:b.py`, `${shas.window.slice(0, 7)}:c.ts`, `${shas.side.slice(0, 7)}:c.ts`].sort(),
    );
    expect(stats.samples.train + stats.samples.val).toBe(samples.length);
    expect(stats.commits.seen).toBe(7);
  });

  it('respects --max and --since', async () => {
    const out = join(repo.dir, 'max.jsonl');
    const s = await mineRepository({ repo: repo.dir, out, max: 2 });
    expect(s.commits.seen).toBe(2);
    const s2 = await mineRepository({ repo: repo.dir, out, since: '@1700000250' });
    expect(s2.commits.seen).toBeLessThan(7);
    expect(s2.commits.seen).toBeGreaterThan(0);
  });

  it('fails with a one-line message outside a git repository', async () => {
    await expect(mineRepository({ repo: '/', out: join(repo.dir, 'x.jsonl') })).rejects.toThrow(/not a git repository/);
  });
});
