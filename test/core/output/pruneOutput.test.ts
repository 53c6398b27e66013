import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { droppedNote } from '../../../src/core/output/dropped.js';
import { COMMAND_FAMILY_COUNT, LINE_FEATURES } from '../../../src/core/output/lineFeatures.js';
import type { LineModel } from '../../../src/core/output/lineModel.js';
import { OutputMemory } from '../../../src/core/output/memory.js';
import { pruneOutput } from '../../../src/core/output/pruneOutput.js';
import type { OutputResult } from '../../../src/core/output/types.js';

const fixture = (name: string) => ({
  text: readFileSync(new URL(`../../fixtures/outputs/${name}.txt`, import.meta.url), 'utf8'),
  ...(JSON.parse(readFileSync(new URL(`../../fixtures/outputs/${name}.json`, import.meta.url), 'utf8')) as { command: string; thought: string }),
});
const FIXTURES = [
  'django-runtests',
  'sympy-bin-test',
  'pip-install',
  'ls-R',
  'script-traceback',
  'pytest-repeated',
  'ls-la',
  'pytest-colour',
  'pytest-skipped',
  'node-test-tap',
  'cargo-test-backtrace',
  'mocha-spec',
  'maven-surefire',
  'gxx-template',
  'vitest-node-modules',
  'cargo-test-backtrace-full',
  'cargo-build-error',
  'cargo-build-warnings',
  'gcc-hiredis',
  'javac-commons-lang',
  'eslint-marked',
];
const MARKER = /^\[skim: (\d+) (.*) omitted \((\d+)-(\d+)\)(; skim show ([0-9a-f]+):(\d+)-(\d+)|, not stored)\]$/;

/** Every input line is either printed verbatim, in order, or inside exactly one marker that names it. */
function expectHonest(input: string, r: OutputResult): void {
  const inLines = input.split('\n');
  const outLines = r.text.split('\n');
  let i = 0;
  for (const l of outLines) {
    const m = MARKER.exec(l);
    if (m && !(inLines[i] === l)) {
      const [from, to] = [Number(m[3]), Number(m[4])];
      expect(from).toBe(i + 1);
      expect(Number(m[1])).toBe(to - from + 1);
      for (let k = from - 1; k < to; k++) expect(r.keepMask[k]).toBe(0);
      i = to;
      continue;
    }
    expect(l).toBe(inLines[i]);
    i++;
  }
  expect(i).toBe(inLines.length);
}

function pytestLog(passed: number, failedAt: number): string {
  const lines = ['============================= test session starts ==============================', 'collected 300 items', ''];
  for (let i = 0; i < passed; i++)
    lines.push(`tests/test_mod${i % 7}.py::test_case_${i} ${i === failedAt ? 'FAILED' : 'PASSED'} [${String(Math.floor((i * 100) / passed)).padStart(3)}%]`);
  lines.push('=================================== FAILURES ===================================', '_____ test_case_x _____', 'E   AssertionError: 1 != 2');
  lines.push(`=========== 1 failed, ${passed - 1} passed in 3.21s ===========`);
  return `${lines.join('\n')}\n`;
}

describe('pruneOutput', () => {
  it('folds passing tests of a pytest run and keeps the failure, its message and the summary', () => {
    const text = pytestLog(300, 150);
    const r = pruneOutput({ text, command: 'pytest -v tests', query: 'why does test_case_150 fail?' });
    expect(r.shape).toBe('pytest');
    expect(r.text).toContain('tests/test_mod3.py::test_case_150 FAILED');
    expect(r.text).toContain('E   AssertionError: 1 != 2');
    expect(r.text).toContain('1 failed, 299 passed');
    expect(r.text).toMatch(/\[skim: 150 lines of passed tests omitted \(4-153\), not stored\]/);
    expect(r.charsOut).toBeLessThan(r.charsIn / 5);
    expectHonest(text, r);
  });

  it.each(FIXTURES)('%s: every line is shown verbatim or named by one marker, and the same input gives the same output', (name) => {
    const f = fixture(name);
    const a = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory: new OutputMemory() });
    const b = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory: new OutputMemory() });
    expect(a.text).toBe(b.text);
    expectHonest(f.text, a);
    expect(a.charsOut).toBeLessThanOrEqual(a.charsIn);
  });

  it('folds the chatter of pip and keeps what was installed and the errors', () => {
    const f = fixture('pip-install');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought });
    expect(r.shape).toBe('pip');
    expect(r.folds.some((x) => x.label === 'package manager progress')).toBe(true);
    for (const l of f.text.split('\n')) if (/^(ERROR|Successfully installed)/.test(l)) expect(r.text).toContain(l);
  });

  it('folds the test database set-up of a Django run and keeps every FAIL/ERROR and the totals', () => {
    const f = fixture('django-runtests');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought });
    expect(r.shape).toBe('unittest');
    expect(r.folds.length).toBeGreaterThan(0);
    for (const l of f.text.split('\n')) if (/^(FAIL|ERROR): |^Ran \d+ tests|^FAILED/.test(l)) expect(r.text).toContain(l);
  });

  it('keeps a listing of one directory whole, and folds long directories of a recursive listing it does not name', () => {
    const one = `${Array.from({ length: 80 }, (_, i) => `module_${i}.py`).join('\n')}\n`;
    expect(pruneOutput({ text: one, command: 'ls sympy/core', query: 'where is Add defined?' }).text).toBe(one);
    const f = fixture('ls-R');
    // (the rules alone: the learned judgement may fold more, test/core/output/lineModel.test.ts)
    const r = pruneOutput({ text: f.text, command: f.command, query: 'where are the model field classes?', judge: false });
    expect(r.shape).toBe('listing');
    expect(r.folds.every((x) => x.reason === 'listing' && x.label === 'entries of ./tests')).toBe(true);
    const named = pruneOutput({ text: f.text, command: f.command, query: 'which tests cover queries?', judge: false });
    expect(named.folds.filter((x) => x.label === 'entries of ./tests')).toHaveLength(0);
  });

  it('folds traceback frames outside the project but keeps the frame that raised', () => {
    const frames = Array.from({ length: 6 }, (_, i) => [
      `  File "/usr/lib/python3.9/site-packages/lib${i}.py", line ${10 + i}, in call${i}`,
      `    return call${i + 1}(x)`,
    ]).flat();
    const text = [
      ...Array.from({ length: 20 }, (_, i) => `step ${i}: value=${i * i}`),
      'Traceback (most recent call last):',
      '  File "/testbed/app/main.py", line 3, in <module>',
      '    run()',
      ...frames,
      '  File "/usr/lib/python3.9/os.py", line 802, in fsencode',
      '    return filename.encode(encoding, errors)',
      "UnicodeEncodeError: 'ascii' codec can't encode character",
    ].join('\n');
    const r = pruneOutput({ text, command: 'python3 main.py', query: 'why does the script crash?' });
    expect(r.text).toContain('  File "/testbed/app/main.py", line 3, in <module>');
    expect(r.text).toContain('  File "/usr/lib/python3.9/os.py", line 802, in fsencode');
    expect(r.text).toContain("UnicodeEncodeError: 'ascii' codec can't encode character");
    expect(r.text).not.toContain('lib2.py');
    expect(r.folds.map((x) => x.label)).toContain('frames outside the project');
  });

  it('never folds the note that stands for the dropped middle of an output too long to keep', () => {
    const passed = (from: number) => Array.from({ length: 200 }, (_, i) => `tests/test_mod.py::test_case_${from + i} PASSED`);
    const note = droppedNote(123456789, '16 MiB');
    const text = [...passed(0), note, ...passed(900000), '==== 1400 passed in 9.00s ===='].join('\n');
    // a judgement that expects every plain line unused: the note is not a plain line
    const foldAll: LineModel = {
      features: [...LINE_FEATURES],
      base: Math.log(0.0001 / 0.9999),
      trees: [{ feature: [-1], split: [0], left: [-1], right: [-1], value: [0] }],
      threshold: 1,
      contextChars: 0,
      familyScale: new Array(COMMAND_FAMILY_COUNT).fill(1),
    };
    const r = pruneOutput({ text: `build started\n${text.replace('====', 'plain line\n====')}`, command: 'pytest -v', judge: foldAll });
    expect(r.folds.some((f) => f.reason === 'unlikely')).toBe(true);
    expect(r.text.split('\n')).toContain(note);
    expect(r.keepMask[201]).toBe(1);
  });

  it('shows the dropped note again when the same long command runs again: it is never folded as seen', () => {
    const memory = new OutputMemory();
    const half = (from: number) => Array.from({ length: 30 }, (_, i) => `check ${from + i}: ${'parsed '.repeat((i % 4) + 1)}-> Symbol(x${i})`);
    const note = droppedNote(123456789, '16 MiB');
    const text = `${[...half(0), note, ...half(900000), 'done'].join('\n')}\n`;
    for (let run = 1; run <= 3; run++) {
      const r = pruneOutput({ text, command: 'python3 long.py', query: 'q', memory, judge: false });
      if (run > 1) expect(r.folds.some((f) => f.reason === 'seen')).toBe(true);
      expect(r.text.split('\n')).toContain(note);
      expectHonest(text, r);
    }
  });

  it('a command run again folds its alike lines as before: the fold does not start one line later each run', () => {
    const text = ['start of run', ...Array.from({ length: 60 }, (_, i) => `processing record number ${i} of the batch: ok`), 'done: 60 records', ''].join('\n');
    const memory = new OutputMemory();
    const runs = [1, 2, 3].map(() => pruneOutput({ text, command: 'python run.py', memory, judge: false }).text);
    expect(runs[0]).toMatch(/58 more lines like the one above omitted \(3-60\)/);
    expect(runs[1]).toBe(runs[0]);
    expect(runs[2]).toBe(runs[0]);
  });

  it('keeps a line the question names even among lines that fold', () => {
    const r = pruneOutput({ text: pytestLog(300, -1), command: 'pytest -v', query: 'does test_case_77 still pass?' });
    expect(r.text).toContain('test_case_77 PASSED');
  });

  it('shows the same command run again as what changed, and says the rest is as in the previous run', () => {
    const memory = new OutputMemory();
    // lines of varied shapes, so the first run shows them all
    const run = (answer: string) =>
      `${Array.from({ length: 40 }, (_, i) => `check ${i}: ${'parsed '.repeat((i % 4) + 1)}-> ${i === 20 ? answer : `Symbol(x${i})`}`).join('\n')}\n`;
    pruneOutput({ text: run('Add(x, 1)'), command: 'python3 repro.py', query: 'q', memory, judge: false });
    const second = run('Add(x, 2)');
    const r = pruneOutput({ text: second, command: 'python3  repro.py', query: 'q', memory, judge: false });
    expect(r.text).toContain('check 20: parsed -> Add(x, 2)');
    expect(r.text).toMatch(/\[skim: 20 lines as in the previous run of this command omitted \(1-20\); skim show [0-9a-f]+:1-20\]/);
    expectHonest(second, r);
    // another command that prints lines this session showed: they are in the agent's context
    const other = pruneOutput({ text: second, command: 'python3 repro.py --again', query: 'q', memory });
    expect(other.text).toMatch(/lines shown earlier in this session omitted/);
  });

  it('reads a coloured run (pytest --color=yes) by what the terminal shows: its passed tests fold as such, the colour codes stay', () => {
    const f = fixture('pytest-colour');
    expect(f.text).toContain('\x1b[32mPASSED\x1b[0m');
    const [coloured, plain] = [f.text, stripVTControlCharacters(f.text)].map((text) => {
      const r = pruneOutput({ text, command: f.command, query: f.thought, memory: new OutputMemory() });
      expectHonest(text, r);
      return r;
    });
    expect(coloured.shape).toBe('pytest');
    expect(coloured.folds).toContainEqual({ from: 7, to: 46, reason: 'routine', label: 'passed tests' });
    expect(coloured.folds).toEqual(plain.folds);
    expect(coloured.text).toContain('\x1b[31mFAILED\x1b[0m');
    // and without the command to name the runner
    expect(pruneOutput({ text: f.text, query: f.thought }).shape).toBe('pytest');
  });

  it('folds the passing results of a node --test (TAP) run with their YAML blocks, keeps the failure, its error and the totals', () => {
    const f = fixture('node-test-tap');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, judge: false });
    expectHonest(f.text, r);
    expect(r.shape).toBe('tap');
    for (const l of ['not ok 51 - parseAmount handles thousands separators', "  code: 'ERR_ASSERTION'", '# fail 1', '# pass 50'])
      expect(r.text.split('\n')).toContain(l);
    expect(r.text).not.toContain('ok 1 - adds 0');
    expect(r.charsOut).toBeLessThan(r.charsIn / 3);
    // without the command, by its lines
    expect(pruneOutput({ text: f.text, query: f.thought }).shape).toBe('tap');
  });

  describe('a Rust backtrace frame is its function line and its location', () => {
    /** Never a location without its function, or a function without its location; a frame in the project is shown. */
    function expectFramesWhole(text: string, r: OutputResult): number {
      const lines = text.split('\n');
      let frames = 0;
      for (let i = 1; i < lines.length; i++) {
        if (!/^\s+at \S+:\d+:\d+$/.test(lines[i]) || !/^\s+\d+: /.test(lines[i - 1])) continue;
        frames++;
        expect([i, r.keepMask[i - 1], r.keepMask[i]]).toEqual([i, r.keepMask[i], r.keepMask[i]]);
        if (!/ at \/rustc\//.test(lines[i])) expect([lines[i - 1], r.keepMask[i - 1]]).toEqual([lines[i - 1], 1]);
      }
      return frames;
    }

    it('RUST_BACKTRACE=1: a frame in the project stays whole, one outside folds whole', () => {
      const f = fixture('cargo-test-backtrace');
      const r = pruneOutput({ text: f.text, command: f.command, query: f.thought });
      expectHonest(f.text, r);
      expect(r.shape).toBe('cargo');
      expect(expectFramesWhole(f.text, r)).toBe(23);
      for (const l of ["thread 'rollup_covers_subaccounts' (7608) panicked at tests/ledger_tests.rs:900:5:", ' right: Amount { cents: 4000 }'])
        expect(r.text.split('\n')).toContain(l);
      expect(r.text).toMatch(/^test result: FAILED\. 131 passed; 3 failed; /m);
      expect(r.folds).toContainEqual({ from: 175, to: 182, reason: 'routine', label: 'frames outside the project' });
    });

    it('RUST_BACKTRACE=full (an address before each function)', () => {
      const f = fixture('cargo-test-backtrace-full');
      const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory: new OutputMemory() });
      expectHonest(f.text, r);
      expect(expectFramesWhole(f.text, r)).toBe(45);
      expect(r.text).toContain('ledger_tests::rollup_covers_subaccounts::h02209d4d8e3d758d');
      expect(r.folds.some((x) => x.from === 16 && /frames outside the project/.test(x.label ?? ''))).toBe(true);
    });
  });

  it("keeps every failing test of mocha's spec reporter (`1) name`): a marker of passed tests never hides one", () => {
    const f = fixture('mocha-spec');
    // (a session's first output: the judgement folds the most there)
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory: new OutputMemory() });
    expectHonest(f.text, r);
    expect(r.shape).toBe('js-test');
    const lines = r.text.split('\n');
    for (const l of ['    1) parses thousands separators', '    2) lists items in order', '  150 passing (45ms)', '  2 failing']) expect(lines).toContain(l);
    expect(r.charsOut).toBeLessThan(r.charsIn / 2);
  });

  it("folds Maven's INFO progress of a failed multi-module test run, keeps its errors, the failing module and the summary", () => {
    const f = fixture('maven-surefire');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, judge: false });
    expectHonest(f.text, r);
    expect(r.shape).toBe('maven-gradle');
    const shown = stripVTControlCharacters(r.text).split('\n');
    for (const l of [
      '[ERROR] com.acme.inventory.CsvImporterTest.importsEveryLine -- Time elapsed: 0.018 s <<< ERROR!',
      'Caused by: java.lang.IllegalArgumentException: bad SKU code: abc-0003',
      '\tat com.acme.inventory.CsvImporter.importLine(CsvImporter.java:32)',
      '[ERROR]   StockTest.totalCountsEverySku:32 total after one shipment ==> expected: <7> but was: <6>',
      '[ERROR] Tests run: 124, Failures: 1, Errors: 1, Skipped: 0',
      '[INFO] inventory .......................................... FAILURE [  2.815 s]',
      '[INFO] BUILD FAILURE',
    ])
      expect(shown).toContain(l);
    expect(r.folds.filter((x) => x.label === 'build progress').length).toBeGreaterThan(0);
    expect(shown).not.toContain('[INFO] Scanning for projects...');
    expect(r.charsOut).toBeLessThan(r.charsIn * 0.6);
  });

  it("folds a C++ template error's notes in system headers (candidates tried, instantiation steps), keeps its errors and where the project's code is", () => {
    const f = fixture('gxx-template');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, judge: false });
    expectHonest(f.text, r);
    expect(r.shape).toBe('compiler');
    const shown = r.text.split('\n');
    for (const l of f.text.split('\n')) if (/: error: |^inventory\.cpp:\d+:\d+: /.test(l)) expect(shown).toContain(l);
    expect(r.folds.filter((x) => x.label === 'notes in system headers').length).toBeGreaterThan(3);
    expect(r.text).not.toContain('note: candidate:');
    expect(r.charsOut).toBeLessThan(r.charsIn / 2);
  });

  it("keeps a JavaScript stack trace's frames in the project (vitest's `❯ fn file:line:col`) and folds those in node_modules", () => {
    const f = fixture('vitest-node-modules');
    // (a session's first output: the judgement folds the most there)
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory: new OutputMemory() });
    expectHonest(f.text, r);
    expect(r.shape).toBe('js-test');
    const shown = stripVTControlCharacters(r.text).split('\n');
    for (const l of [' ❯ loadPrice vt/yaml.test.mjs:6:52', ' ❯ parseAmount src/money.js:6:17', ' ❯ vt/money.test.mjs:86:52']) expect(shown).toContain(l);
    // js-yaml's nine frames
    expect(r.folds.some((x) => x.from <= 171 && x.to === 179 && /frames outside the project$/.test(x.label ?? ''))).toBe(true);
  });

  it('a fold of skipped and xfail tests says so: "passed tests" names only passed ones', () => {
    const f = fixture('pytest-skipped');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, judge: false });
    expectHonest(f.text, r);
    const lines = f.text.split('\n');
    const fold = r.folds.find((x) => lines.slice(x.from - 1, x.to).some((l) => / SKIPPED /.test(l)));
    expect(fold?.label).toBe('passed, skipped or xfail tests');
    expect(r.text).not.toMatch(/lines of passed tests omitted/);
    // only passed tests: "passed tests"
    const passed = lines.filter((l) => !/ (SKIPPED|XFAIL) /.test(l)).join('\n');
    expect(pruneOutput({ text: passed, command: f.command, query: f.thought, judge: false }).text).toMatch(/\[skim: 29 lines of passed tests omitted/);
    // a unittest run's skips likewise
    const unittest = Array.from(
      { length: 40 },
      (_, i) => `test_case_${i} (tests.test_mod.T.test_case_${i}) ... ${i % 4 === 1 ? "skipped 'needs a database'" : 'ok'}`,
    );
    const u = pruneOutput({ text: `${unittest.join('\n')}\nRan 40 tests in 0.1s\n\nOK (skipped=10)\n`, command: 'python -m unittest -v', judge: false });
    expect(u.folds.map((x) => x.label)).toEqual(['passed, skipped or xfail tests']);
  });

  it('under an output limit, remembers only the lines the harness lets through: a repeat does not fold lines it cut away', () => {
    // 400 failures: every line is a signal, so the pruned output is still over the harness's limit
    const failures = Array.from({ length: 400 }, (_, i) => `tests/test_mod.py::test_case_number_${i} FAILED [${String(Math.floor(i / 4)).padStart(3)}%]`);
    const text = `collected 400 items\n\n${failures.join('\n')}\n===== 400 failed in 3.21s =====\n`;
    expect(text.length).toBeGreaterThan(20_000);
    const memory = new OutputMemory();
    const first = pruneOutput({ text, command: 'pytest tests', query: 'q', memory, outputLimit: 'mini-swe-agent' });
    expect(first.text.length).toBeGreaterThan(10_000); // mini-swe-agent shows its first and last 5,000 characters
    const again = pruneOutput({ text, command: 'pytest tests', query: 'q', memory, outputLimit: 'mini-swe-agent' });
    expectHonest(text, again);
    const folded = new Set<number>();
    for (const f of again.folds) for (let k = f.from; k <= f.to; k++) folded.add(k);
    // the middle of the first output never reached the agent: shown again, not "as in the previous run"
    const middle = text.split('\n').indexOf('tests/test_mod.py::test_case_number_200 FAILED [ 50%]') + 1;
    expect(folded.has(middle)).toBe(false);
    expect(again.text).toContain('tests/test_mod.py::test_case_number_200 FAILED [ 50%]');
    // the head it did show folds as such
    expect(again.folds[0]).toMatchObject({ from: 1, reason: 'seen', label: 'previous run' });
    // without a limit the whole first output counts as shown
    const unlimited = new OutputMemory();
    pruneOutput({ text, command: 'pytest tests', query: 'q', memory: unlimited });
    expect(pruneOutput({ text, command: 'pytest tests', query: 'q', memory: unlimited }).text).not.toContain('test_case_number_200 FAILED');
    expect(() => pruneOutput({ text, outputLimit: 'half' })).toThrow(/outputLimit must be/);
  });

  it("folds a repository's metadata entries in `ls -la` (dotfiles, licence, authors, changelog), keeps the code and build files", () => {
    const f = fixture('ls-la');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, judge: false });
    expectHonest(f.text, r);
    expect(r.text).toMatch(/^\[skim: 12 lines of repository metadata \(dotfiles, licence, authors, changelog\) omitted \(3-14\), not stored\]$/m);
    for (const name of ['sphinx', 'tests', 'setup.py', 'tox.ini', 'Makefile', 'README.rst'])
      expect(r.text).toMatch(new RegExp(` ${name.replace('.', '\\.')}$`, 'm'));
    // a goal hint that names one keeps it
    const named = pruneOutput({ text: f.text, command: f.command, query: 'What does CHANGES say about this release?' });
    expect(named.text).toMatch(/ CHANGES$/m);
  });

  it('prints what `skim show` expands whole: the lines a marker named are not folded into another marker', () => {
    const memory = new OutputMemory();
    const log = readFileSync(new URL('../../../examples/mini-swe-agent/pytest-caplog.txt', import.meta.url), 'utf8');
    const run = pruneOutput({ text: log, command: 'python3 -m pytest -v test_records.py', query: 'Why does test_clear_resets_records fail?', memory });
    const fold = run.folds.find((f) => f.label === 'passed tests');
    expect(fold).toBeDefined();
    const { from, to } = fold!;
    const spec = `${run.handle}:${from}-${to}`;
    expect(run.text).toContain(`skim show ${spec}`);
    // the harness sends the output of the command the marker names back through skim
    const expanded = `${log
      .split('\n')
      .slice(from - 1, to)
      .join('\n')}\n`;
    for (const command of [`skim show ${spec}`, `cd /repo && skim show ${spec}`, `SKIM_SESSION=run1 npx skim show ${spec}`]) {
      const shown = pruneOutput({ text: expanded, command, query: 'Which tests passed?', memory });
      expect(shown.text).toBe(expanded);
      expect(shown.folds).toEqual([]);
    }
  });

  describe('a listing entry is its name under its directory', () => {
    // requests' modules: a source tree and its build copy list the same names
    const names = ['__init__.py', '__version__.py', '_internal_utils.py', 'adapters.py', 'api.py', 'auth.py', 'certs.py', 'compat.py', 'cookies.py'];
    const more = ['exceptions.py', 'help.py', 'hooks.py', 'models.py', 'packages.py', 'sessions.py', 'status_codes.py', 'structures.py', 'utils.py'];
    const entries = [...names, ...more].join('\n');

    it("another directory's entries with the same names are not 'shown earlier'; the same command again folds as its previous run", () => {
      const memory = new OutputMemory();
      pruneOutput({ text: entries, command: 'ls src/requests', query: 'q', memory, judge: false });
      const copy = pruneOutput({ text: entries, command: 'ls build/lib/requests', query: 'q', memory, judge: false });
      expect(copy.folds).toEqual([]);
      expect(copy.text).toBe(entries);
      // (the output's last two lines are always shown)
      const again = pruneOutput({ text: entries, command: 'ls src/requests', query: 'q', memory, judge: false });
      expect(again.folds).toEqual([{ from: 1, to: 16, reason: 'seen', label: 'previous run' }]);
    });

    it("the sections of a recursive listing do not fold each other's names as repeats", () => {
      // (fewer entries than a directory's fold takes: only a repeat could fold them)
      const tests = [...names, ...more].slice(0, 11).map((n) => `test_requests_${n}`);
      const text = ['tests/unit:', ...tests, '', 'tests/integration:', ...tests].join('\n');
      const r = pruneOutput({ text, command: 'ls -R', query: 'q', judge: false });
      expect(r.folds.filter((f) => f.reason === 'seen')).toEqual([]);
    });

    it('a path another output showed is that file: it folds as shown earlier', () => {
      const memory = new OutputMemory();
      const paths = [...names, ...more].map((n) => `./src/requests/${n}`).join('\n');
      pruneOutput({ text: paths, command: 'find . -name "*.py"', query: 'q', memory, judge: false });
      const r = pruneOutput({ text: paths, command: 'find ./src -name "*.py"', query: 'q', memory, judge: false });
      expect(r.folds).toEqual([{ from: 1, to: 16, reason: 'seen', label: 'earlier' }]);
    });
  });

  it('a run of alike lines whose example line is folded too names it by its line, not as "the one above"', () => {
    const first = [
      'Loading configuration from /etc/app/settings.toml (profile: default)',
      '  -> 3 plugins enabled: cache, metrics, auth',
      'note: using cached build directory ./build/cache-7f3a',
      'processed record 0001 status=ok elapsed=0.013s checksum=a1f9c0',
    ];
    const records = Array.from(
      { length: 8 },
      (_, i) => `processed record ${String(i + 2).padStart(4, '0')} status=ok elapsed=0.0${10 + i}s checksum=b${i}e8d1`,
    );
    // the first four lines printed again: the repeat of record 0001 is the example of the records after it
    const text = [...first, ...first, ...records, '', 'Summary', 'records: 10, failures: 0', 'done in 0.21s'].join('\n');
    const r = pruneOutput({ text, command: 'python3 etl.py', query: 'q', judge: false });
    expectHonest(text, r);
    expect(r.folds).toEqual([
      { from: 5, to: 8, reason: 'seen', label: 'above' },
      { from: 9, to: 16, reason: 'similar', label: '8' },
    ]);
    expect(r.text).toContain('[skim: 8 more lines like line 8 omitted (9-16), not stored]');
    // with its example shown, the marker points above
    const shown = pruneOutput({ text: [...first, ...records, 'done'].join('\n'), command: 'python3 etl.py', query: 'q', judge: false, minLines: 5 });
    expect(shown.text).toContain('[skim: 7 more lines like the one above omitted');
  });

  it('folds lines that repeat a kept line above them, and only those', () => {
    const f = fixture('pytest-repeated');
    const r = pruneOutput({ text: f.text, command: f.command, query: f.thought, memory: new OutputMemory() });
    expectHonest(f.text, r);
    const repeats = r.folds.filter((x) => x.reason === 'seen' && x.label === 'above');
    expect(repeats.length).toBeGreaterThan(0);
    expect(r.text).toMatch(/\[skim: \d+ lines repeating lines above omitted \(\d+-\d+\); skim show /);
    const lines = f.text.split('\n');
    for (const fold of repeats)
      for (let k = fold.from - 1; k < fold.to; k++)
        if (lines[k].trim() !== '') expect(lines.slice(0, k).some((l, j) => r.keepMask[j] === 1 && l === lines[k])).toBe(true);
  });

  it('stores the output behind a handle that names every folded range', () => {
    const memory = new OutputMemory();
    const text = pytestLog(300, 150);
    const r = pruneOutput({ text, command: 'pytest -v', query: 'q', memory });
    expect(r.handle).toMatch(/^[0-9a-f]{10}$/);
    expect(memory.get(r.handle!)?.text).toBe(text);
    expect(r.text).toContain(`skim show ${r.handle}:4-153]`);
  });

  it('returns binary, empty and short outputs whole', () => {
    for (const text of ['', 'ok\n', `bin\0ary\n${'x\n'.repeat(100)}`]) {
      const r = pruneOutput({ text, command: 'cat x' });
      expect(r.text).toBe(text);
      expect(r.folds).toEqual([]);
    }
    expect(pruneOutput({ text: `bin\0ary\n${'x\n'.repeat(100)}` }).warnings[0]).toMatch(/binary/);
  });

  it('keeps CRLF line ends and a missing final newline', () => {
    const text = pytestLog(100, 50).replace(/\n/g, '\r\n').replace(/\r\n$/, '');
    const r = pruneOutput({ text, command: 'pytest -v', query: 'q' });
    expect(r.text.endsWith('\r\n')).toBe(false);
    expect(r.text.split('\r\n').length).toBe(r.text.split('\n').length);
    expect(r.text).toContain('test_case_50 FAILED');
  });

  it('rejects a request without text', () => {
    expect(() => pruneOutput({} as never)).toThrow(/needs "text"/);
  });
});
