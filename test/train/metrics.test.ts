import { describe, expect, it } from 'vitest';
import { type LabeledFile, repoDistractors } from '../../src/train/datasets.js';
import { addPrf, prf, recallOf, selectTopK } from '../../src/train/metrics.js';
import type { Example } from '../../src/train/prepare.js';
import { auc, calibrateThreshold, DISTRACTOR_WEIGHT } from '../../src/train/trainer.js';

describe('metrics', () => {
  it('selectTopK takes the best lines that fit and never exceeds the budget', () => {
    const keep = selectTopK([0.9, 0.1, 0.8, 0.5], [10, 1, 6, 3], 14);
    expect(Array.from(keep)).toEqual([1, 1, 0, 1]);
    expect(recallOf(keep, [0, 2])).toEqual({ hit: 1, total: 2 });
  });
  it('prf counts', () => {
    const acc = { tp: 0, fp: 0, fn: 0 };
    addPrf(acc, [0.9, 0.2, 0.7, 0.1], [1, 1, 0, 0], 0.5);
    expect(prf(acc)).toEqual({ p: 0.5, r: 0.5, f1: 0.5 });
  });
});

describe('calibrateThreshold', () => {
  // two teacher gold files: labelled lines score high in their file, others low; one distractor
  const file = (role: 'gold' | 'distractor', keep: number[], agg: number[], doc = role === 'gold' ? 0.9 : 0.2) =>
    [
      { file: { source: 'teacher', role, agg, lines: keep.map(() => 'x = 1') }, n: keep.length } as unknown as Example,
      { keep: Float64Array.from(keep), doc },
    ] as const;
  // what the calibration minimizes at the default weight
  const cost = (c: { goldKeptShare: number; distractorKeptShare: number }) => c.goldKeptShare + DISTRACTOR_WEIGHT * c.distractorKeptShare;
  const scores = new Map([
    file('gold', [0.5, 0.4, 0.02, 0.01, 0.01, 0.03], [0, 1]),
    file('gold', [0.05, 0.04, 0.01, 0.001, 0.002, 0.001], [0, 1]),
    file('distractor', [0.03, 0.02, 0.01, 0.01, 0.01, 0.01], []),
  ]);

  it("keeps the target recall and, with a relative floor, drops what is far below each file's best", () => {
    const plain = calibrateThreshold(scores, 1, { floors: [0] });
    expect(plain.recall).toBe(1);
    expect(plain.relativeFloor).toBe(0);
    const withFloor = calibrateThreshold(scores, 1, { floors: [0, 0.5] });
    expect(withFloor.recall).toBe(1);
    // more candidates can only lower the cost the calibration minimizes
    expect(cost(withFloor)).toBeLessThanOrEqual(cost(plain));
    expect(withFloor.candidates.some((c) => c.relativeFloor === 0.5)).toBe(true);
  });

  it('weighs kept distractor characters by distractorWeight when it picks docPower', () => {
    // the distractor's best lines outscore the low-document gold file's labelled line unless the
    // document score weighs in (docPower 2), which costs gold lines of the other file
    const tradeOff = new Map([
      file('gold', [0.37, 0.08, 0.3, 0.34], [0], 0.54),
      file('gold', [0.55, 0.32, 0.28, 0.2], [0], 0.88),
      file('distractor', [0.1, 0.57, 0.48, 0.05], [], 0.44),
    ]);
    const alike = calibrateThreshold(tradeOff, 1, { floors: [0], distractorWeight: 1 });
    expect([alike.docPower, alike.goldKeptShare, alike.distractorKeptShare]).toEqual([0, 0.25, 0.5]);
    const weighted = calibrateThreshold(tradeOff, 1, { floors: [0] }); // DISTRACTOR_WEIGHT = 1.8
    expect([weighted.docPower, weighted.goldKeptShare, weighted.distractorKeptShare]).toEqual([2, 0.625, 0.25]);
    expect(weighted.recall).toBe(1);
    expect([alike.distractorWeight, weighted.distractorWeight]).toEqual([1, DISTRACTOR_WEIGHT]);
    for (const c of weighted.candidates) expect(cost(weighted)).toBeLessThanOrEqual(cost(c) + 1e-9);
  });

  it('skips a floor that alone loses more than the target allows', () => {
    const cal = calibrateThreshold(scores, 1, { floors: [0, 0.95] });
    expect(cal.candidates.every((c) => c.relativeFloor === 0)).toBe(true);
  });
});

describe('auc', () => {
  it('matches pair counting, ties counting half', () => {
    const pos = [0.9, 0.4, 0.4, 0.1];
    const neg = [0.4, 0.2, 0.05];
    let wins = 0;
    for (const p of pos) for (const q of neg) wins += p > q ? 1 : p === q ? 0.5 : 0;
    expect(auc(pos, neg)).toBeCloseTo(wins / (pos.length * neg.length), 12);
    expect(auc([1, 2], [0])).toBe(1);
    expect(auc([0], [1, 2])).toBe(0);
    expect(auc([], [1])).toBeNaN();
  });
});

describe('repoDistractors', () => {
  const sample = (repo: string, commit: string, p: string, split: 'train' | 'val' = 'train'): LabeledFile => ({
    id: `${repo}@${commit}:${p}`,
    source: 'commit',
    repo,
    commit,
    path: p,
    lang: 'python',
    query: `fix ${p} in ${commit}`,
    queryKind: 'commit',
    lines: [`# ${p}`],
    agg: [0],
    role: 'gold',
    split,
  });
  const pool = [
    sample('a/r', 'c1', 'pkg/core/x.py'),
    sample('a/r', 'c1', 'pkg/core/y.py'),
    sample('a/r', 'c2', 'pkg/core/z.py'),
    sample('a/r', 'c3', 'pkg/util/w.py'),
    sample('a/r', 'c4', 'pkg/core/x.py'),
    sample('b/s', 'c5', 'pkg/core/v.py'),
  ];

  it('pairs a commit message with a file of the same repository and folder from another commit and path', () => {
    const out = repoDistractors([pool[0]], pool, 1);
    expect(out).toHaveLength(1);
    const d = out[0];
    // same folder, other commit, other path: z.py is the only one
    expect(d).toMatchObject({ role: 'distractor', agg: [], query: pool[0].query, repo: 'a/r', path: 'pkg/core/z.py', lines: pool[2].lines, split: 'train' });
    expect(repoDistractors([pool[0]], pool, 1)).toEqual(out); // deterministic
  });

  it('falls back to the repository when the folder has no candidate, and skips samples with none', () => {
    expect(repoDistractors([pool[3]], pool, 1)[0].path).toMatch(/^pkg\/core\//);
    expect(repoDistractors([pool[5]], pool, 1)).toEqual([]); // b/s has no other sample
  });

  it('draws the given number of distractors per sample on average, each path once per query', () => {
    const many = Array.from({ length: 400 }, (_, i) => sample('a/r', `k${i}`, `pkg/f${i}.py`));
    expect(repoDistractors(many, many, 0)).toEqual([]);
    const half = repoDistractors(many, many, 0.5).length;
    expect(half).toBeGreaterThan(160);
    expect(half).toBeLessThan(240);
    const two = repoDistractors(many, many, 2);
    expect(two).toHaveLength(800);
    const perQuery = new Map<string, string[]>();
    for (const d of two) perQuery.set(d.query, [...(perQuery.get(d.query) ?? []), d.path]);
    for (const paths of perQuery.values()) expect(new Set(paths).size).toBe(2);
  });

  it('teacher queries: never a file the query already has (its gold file or its own distractor)', () => {
    const teacher = (p: string, q: string, role: 'gold' | 'distractor'): LabeledFile => ({
      id: `t#${q}:${p}`,
      source: 'teacher',
      repo: 'a/r',
      path: p,
      lang: 'python',
      query: q,
      queryKind: 'goal',
      taskType: 'code-locate',
      lines: [`# ${p}`],
      agg: role === 'gold' ? [0] : [],
      role,
      split: 'train',
    });
    const files = [
      teacher('pkg/a.py', 'q1', 'gold'),
      teacher('pkg/b.py', 'q1', 'distractor'),
      teacher('pkg/b.py', 'q2', 'gold'),
      teacher('pkg/c.py', 'q2', 'distractor'),
      teacher('pkg/c.py', 'q3', 'gold'),
      teacher('pkg/a.py', 'q3', 'distractor'),
    ];
    const out = repoDistractors(
      files.filter((f) => f.role === 'gold'),
      files,
      1,
    );
    expect(out.map((d) => [d.query, d.path])).toEqual([
      ['q1', 'pkg/c.py'],
      ['q2', 'pkg/a.py'],
      ['q3', 'pkg/b.py'],
    ]);
    expect(out[0]).toMatchObject({ source: 'teacher', queryKind: 'goal', taskType: 'code-locate', role: 'distractor', agg: [] });
  });
});
