import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BugLabel, StoredCase } from '../../scripts/bugreports/build.js';
import { cleanEntry, parseHunks, proseBody } from '../../scripts/bugreports/mine.js';

describe('bug-report miner', () => {
  it('reads the old side of a -U0 diff: rewritten lines are gold, a pure insertion anchors on its neighbours', () => {
    const diff = [
      'diff --git a/x.py b/x.py',
      '--- a/x.py',
      '+++ b/x.py',
      '@@ -3,2 +3,2 @@ def f():',
      '-    a = 1',
      '-    b = 2',
      '+    a = 2',
      '+    b = 3',
      '@@ -10,0 +11,1 @@ def g():',
      '+    return None',
      '@@ -20 +21 @@',
      '-x',
      '+y',
    ].join('\n');
    const h = parseHunks(diff, 20);
    expect(h.gold).toEqual([3, 4, 20]);
    // line 20 is gold, and the file ends there: the insertion after 10 anchors on 10 and 11
    expect(h.anchor).toEqual([10, 11]);
    expect(h.hunks.map((x) => [x.old_start, x.old_len])).toEqual([
      [3, 2],
      [10, 0],
      [20, 1],
    ]);
  });

  it('turns a news fragment into plain text: roles, credits, issue links and link targets go, code spans stay', () => {
    const fragment =
      'Made :py:meth:`~yarl.URL.build` raise a :exc:`TypeError` when ``host`` is None -- by :user:`someone`.\n' + 'Resolves https://github.com/o/r/issues/12\n';
    expect(cleanEntry(fragment)).toBe('Made `yarl.URL.build` raise a `TypeError` when `host` is None');
    expect(cleanEntry('No longer crash on empty input, closing `issue 166`_.\n\n.. _issue 166: https://example.org/166')).toBe(
      'No longer crash on empty input, closing issue 166.',
    );
    expect(cleanEntry('- Fix crash on `X | Y` unions (#1234)')).toBe('Fix crash on `X | Y` unions');
  });

  it('keeps a prose commit body and drops squash lists, checklists, trailers and Mercurial metadata', () => {
    const prose = 'When the config file sits in a subfolder, relative paths were resolved\nfrom the current directory.';
    expect(proseBody(`${prose}\n\nSigned-off-by: A <a@b>`)).toBe(prose);
    expect(proseBody('* first commit subject here\n* second commit subject here\n* third one')).toBe('');
    expect(proseBody('--HG--\nbranch : distribute\nextra : rebase_source : 11dab4d1ff0d41ef9b7e808ce7e41592b18a7270')).toBe('');
    expect(proseBody('Fixes #12')).toBe('');
  });
});

describe('data/bugreports', () => {
  const cases = gunzipSync(readFileSync('data/bugreports/cases.jsonl.gz'))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as StoredCase);
  const labels = readFileSync('data/bugreports/labels.jsonl', 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as BugLabel);

  it('every case records where it comes from and never names its gold file in the report', () => {
    for (const c of cases) {
      expect(c.repo).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(c.fix_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(c.base_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(c.text_source).toMatch(/^(news fragment|changelog entry in) /);
      const gold = c.files.filter((f) => f.role === 'gold');
      expect(gold.length).toBeGreaterThan(0);
      for (const f of gold) {
        expect(c.query.includes(f.path.split('/').pop()!)).toBe(false);
        expect(f.gold_lines.length + f.anchor_lines.length).toBeGreaterThan(0);
      }
    }
    // swebench-dev's repositories are its check: never mined
    expect(cases.filter((c) => /^(sympy|sphinx-doc|pytest-dev\/pytest$)/.test(c.repo))).toEqual([]);
  });

  it('every teacher label names a gold file of a mined case, with well-formed ranges', () => {
    const gold = new Set(cases.flatMap((c) => c.files.filter((f) => f.role === 'gold').map((f) => `${c.id}\0${f.path}`)));
    for (const l of labels) {
      expect(gold.has(`${l.id}\0${l.path}`)).toBe(true);
      for (const [s, e] of [...l.keep, ...l.support]) expect(s! >= 1 && e! >= s!).toBe(true);
      expect(l.keep.length).toBeGreaterThan(0);
    }
  });
});
