import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planFolds } from '../../../src/core/output/fold.js';
import { COMMAND_FAMILY_COUNT, commandFamily, identifierParts, LINE_FEATURES } from '../../../src/core/output/lineFeatures.js';
import { analysedFeatures, LINE_MODEL, type LineModel, treeScore, unlikelyLines, usedProbabilities } from '../../../src/core/output/lineModel.js';
import { splitOutput } from '../../../src/core/output/lines.js';
import { OutputMemory } from '../../../src/core/output/memory.js';
import { analyseOutput, pruneOutput } from '../../../src/core/output/pruneOutput.js';

const fixture = (name: string) => ({
  text: readFileSync(new URL(`../../fixtures/outputs/${name}.txt`, import.meta.url), 'utf8'),
  ...(JSON.parse(readFileSync(new URL(`../../fixtures/outputs/${name}.json`, import.meta.url), 'utf8')) as { command: string; thought: string }),
});
const F = LINE_FEATURES.length;
const col = (name: (typeof LINE_FEATURES)[number]) => LINE_FEATURES.indexOf(name);

/** A model of one leaf: every line gets the same probability of use. */
const constantModel = (p: number, threshold: number): LineModel => ({
  features: [...LINE_FEATURES],
  base: Math.log(p / (1 - p)),
  trees: [{ feature: [-1], split: [0], left: [-1], right: [-1], value: [0] }],
  threshold,
  contextChars: 0,
  familyScale: new Array(COMMAND_FAMILY_COUNT).fill(1),
});

describe('identifierParts', () => {
  it('splits identifiers on underscores, dots, slashes and camelCase, keeping parts of 3+ letters', () => {
    expect(identifierParts('get_prep_value CharField.getPrepValue django/db/models HTTPResponse')).toEqual([
      'get',
      'prep',
      'value',
      'char',
      'field',
      'get',
      'prep',
      'value',
      'django',
      'models',
      'http',
      'response',
    ]);
  });
});

describe('commandFamily', () => {
  it('tells test runs, listings, searches and scripts apart, after a leading cd', () => {
    const fam = (c: string) => commandFamily(c);
    expect(fam('cd /testbed && python tests/runtests.py queries')).toBe(fam('pytest -x'));
    expect(fam('ls -R src')).toBe(fam('find . -name "*.py"'));
    expect(fam('python reproduce_issue.py')).not.toBe(fam('ls'));
    expect(fam('grep -rn foo .')).not.toBe(fam('python x.py'));
    expect(fam('echo hi')).not.toBe(fam('python x.py'));
  });
});

describe('lineFeatures on a real script output', () => {
  const f = fixture('script-traceback');
  const { lines } = splitOutput(f.text);
  const task = 'SimpleLazyObject in get_object_or_404 crashes on the offer slug';
  const a = analyseOutput(lines, { command: f.command, query: f.thought, task }, null);
  const x = analysedFeatures(a);
  const at = (i: number, name: (typeof LINE_FEATURES)[number]) => x[i * F + col(name)];

  it('gives every line one row of every feature', () => {
    expect(x.length).toBe(lines.length * F);
    expect(Array.from(x).every(Number.isFinite)).toBe(true);
  });

  it('counts the parts of identifiers the task names', () => {
    const i = lines.findIndex((l) => l.includes('unwrapped type(value)'));
    const j = lines.findIndex((l) => l.startsWith('Type of offer_slug'));
    expect(at(i, 'task-parts')).toBeGreaterThanOrEqual(2); // simple, lazy, object
    expect(at(j, 'task-parts')).toBeGreaterThan(at(0, 'task-parts')); // offer, slug
  });

  it('counts words rare in the output and not in the command (a line can only be used through those)', () => {
    const debug = lines.indexOf('DEBUG: params=()');
    const caught = lines.findIndex((l) => l.startsWith('Caught exception'));
    expect(at(debug, 'new-terms')).toBe(0);
    expect(at(caught, 'new-terms')).toBeGreaterThan(0);
  });

  it('measures the distance to the nearest signal line', () => {
    const signal = a.roles.indexOf('signal');
    expect(signal).toBeGreaterThan(0);
    expect(at(signal, 'log-signal-above')).toBe(0);
    expect(at(signal - 1, 'log-signal-below')).toBeCloseTo(Math.log1p(1));
  });
});

describe('the line model', () => {
  it('routes a line down its trees by the features they split on', () => {
    const tree = { feature: [col('numbers'), -1, -1], split: [0.5, 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, -1, 2] };
    const row = new Float64Array(F);
    expect(treeScore({ base: 0.5, trees: [tree] }, row)).toBeCloseTo(-0.5);
    row[col('numbers')] = 3;
    expect(treeScore({ base: 0.5, trees: [tree] }, row)).toBeCloseTo(2.5);
  });

  it('has no say when fitted on other features', () => {
    const f = fixture('ls-R');
    const a = analyseOutput(splitOutput(f.text).lines, { command: f.command, query: f.thought }, null);
    const all = new Uint8Array(a.lines.length).fill(1);
    expect(unlikelyLines(a, { ...constantModel(0.001, 1), features: ['bias'] }, all)).toBeNull();
    expect(unlikelyLines(a, constantModel(0.001, 1), all)).not.toBeNull();
  });

  it('folds, as unlikely to matter, plain lines the rules keep when the model says they go unused', () => {
    const f = fixture('script-traceback');
    const req = { text: f.text, command: f.command, query: f.thought };
    const rules = pruneOutput({ ...req, judge: false });
    const judged = pruneOutput({ ...req, judge: constantModel(0.0001, 1) });
    expect(judged.folds.some((x) => x.reason === 'unlikely')).toBe(true);
    expect(judged.charsOut).toBeLessThan(rules.charsOut);
    // the signal lines the rules keep stay, whatever the model says
    const a = analyseOutput(splitOutput(f.text).lines, req, null);
    a.roles.forEach((r, i) => {
      if (r === 'signal' && rules.keepMask[i]) expect(judged.keepMask[i]).toBe(1);
    });
  });

  it('folds less the more lines the session has shown: a loss late in a run costs a turn over a larger context', () => {
    const f = fixture('script-traceback');
    const req = { text: f.text, command: f.command, query: f.thought };
    const a = analyseOutput(splitOutput(f.text).lines, req, null);
    const all = new Uint8Array(a.lines.length).fill(1);
    const m = { ...constantModel(0.001, 1), charsPerShownLine: 1000 };
    const count = (u: Uint8Array | null) => u!.reduce((s, v) => s + v, 0);
    expect(count(unlikelyLines(a, m, all, 0))).toBeGreaterThan(0);
    expect(count(unlikelyLines(a, m, all, 1000))).toBe(0);
    // without a session, as far into a run as the model's typical output
    expect(count(unlikelyLines(a, { ...m, typicalShownLines: 1000 }, all))).toBe(0);
    expect(count(unlikelyLines(a, { ...m, typicalShownLines: 0 }, all))).toBeGreaterThan(0);
    // through a session: a fresh one folds as unlikely, one that has shown 1,000 lines keeps what the rules keep
    const late = new OutputMemory();
    late.recordShown(Array.from({ length: 1000 }, (_, i) => `an earlier line ${i}`));
    expect(pruneOutput({ ...req, judge: m, memory: new OutputMemory() }).folds.some((x) => x.reason === 'unlikely')).toBe(true);
    expect(pruneOutput({ ...req, judge: m, memory: late }).text).toBe(pruneOutput({ ...req, judge: false, memory: new OutputMemory() }).text);
  });

  it('keeps what a model that expects every line to be used keeps by the rules alone', () => {
    const f = fixture('script-traceback');
    const req = { text: f.text, command: f.command, query: f.thought };
    expect(pruneOutput({ ...req, judge: constantModel(0.9, 1) }).text).toBe(pruneOutput({ ...req, judge: false }).text);
  });

  it('the shipped model folds lines of a real `ls -la` the rules keep, and never a line the question names', () => {
    const f = fixture('ls-la');
    const req = { text: f.text, command: f.command, query: f.thought };
    const rules = pruneOutput({ ...req, judge: false });
    const shipped = pruneOutput(req);
    expect(shipped.charsOut).toBeLessThan(rules.charsOut);
    expect(shipped.folds.some((x) => x.reason === 'unlikely')).toBe(true);
    const lines = splitOutput(f.text).lines;
    lines.forEach((l, i) => {
      if (!shipped.keepMask[i]) expect(rules.keepMask[i] === 0 || !/ (sphinx|tests|setup\.py|tox\.ini)$/.test(l)).toBe(true);
    });
    // the marker that took in the rules' fold of the repository's metadata still says so
    expect(shipped.text).toMatch(/\[skim: \d+ lines unlikely to matter here, \d+ of them repository metadata omitted/);
    const named = pruneOutput({ ...req, query: 'What does CHANGES say about this release?' });
    expect(named.text).toMatch(/ CHANGES$/m);
  });

  it('the shipped model is fitted on these features and gives probabilities', () => {
    expect(LINE_MODEL.features).toEqual([...LINE_FEATURES]);
    const f = fixture('django-runtests');
    const a = analyseOutput(splitOutput(f.text).lines, { command: f.command, query: f.thought }, null);
    const p = usedProbabilities(a);
    expect(p.length).toBe(a.lines.length);
    expect(Array.from(p).every((v) => v > 0 && v < 1)).toBe(true);
  });
});

describe("a fold of unlikely lines next to the rules' folds", () => {
  // 4 lines the rules fold as routine, 4 plain lines the judgement folds, 4 more routine ones, and a tail
  const fold = (secondLabel: string) => {
    const lines = [
      ...Array.from({ length: 4 }, (_, i) => `tests/test_a.py::test_${i} PASSED`),
      ...Array.from({ length: 4 }, (_, i) => `collected item number ${i} of the suite, nothing more`),
      ...Array.from({ length: 4 }, (_, i) => `tests/test_b.py::test_${i} PASSED`),
      'summary line one',
      '=== 8 passed ===',
    ];
    const routine = (i: number) => i < 4 || (i >= 8 && i < 12);
    return planFolds({
      lines,
      roles: lines.map((_, i) => (routine(i) ? 'routine' : 'plain')),
      labels: lines.map((_, i) => (i < 4 ? 'passed tests' : routine(i) ? secondLabel : undefined)),
      relevant: new Uint8Array(lines.length),
      seen: null,
      listing: false,
      question: '',
      unlikely: (undecided) => undecided.map((v, i) => (v && i >= 4 && i < 8 ? 1 : 0)),
    });
  };

  it('is one marker that keeps what the rules said of their lines when they said one thing', () => {
    expect(fold('passed tests')).toEqual([{ from: 1, to: 12, reason: 'unlikely', label: '8 of them passed tests' }]);
  });

  it('counts only the lines it hides (the last lines of an output are shown whatever the rules say)', () => {
    const lines = [
      ...Array.from({ length: 4 }, (_, i) => `collected item number ${i} of the suite, nothing more`),
      ...Array.from({ length: 4 }, (_, i) => `tests/test_b.py::test_${i} PASSED`),
    ];
    const folds = planFolds({
      lines,
      roles: lines.map((_, i) => (i >= 4 ? 'routine' : 'plain')),
      labels: lines.map((_, i) => (i >= 4 ? 'passed tests' : undefined)),
      relevant: new Uint8Array(lines.length),
      seen: null,
      listing: false,
      question: '',
      unlikely: (undecided) => undecided.map((v) => v),
    });
    expect(folds).toEqual([{ from: 1, to: 6, reason: 'unlikely', label: '2 of them passed tests' }]);
  });

  it('says nothing of them when the rules said different things', () => {
    expect(fold('progress')).toEqual([{ from: 1, to: 12, reason: 'unlikely', label: undefined }]);
  });
});
