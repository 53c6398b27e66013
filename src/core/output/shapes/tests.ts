/** Test runners: passing tests and progress fold; failures, their messages and the summary stay. */
import { DIAGNOSTIC_SUMMARY } from './diagnostics.js';
import type { OutputShape } from './shape.js';

const PASS = 'passed tests';
/** Not passed, and not failed either: a marker that says "passed tests" must not hide them. */
const SKIP = 'skipped or xfail tests';
/** Lines of both (a quiet run's `..s..x`), and a fold of some of each. */
const PASS_OR_SKIP = 'passed, skipped or xfail tests';

/** What a fold of lines with these labels is, when they are all tests that did not fail; else undefined. */
export function testOutcomesLabel(labels: ReadonlySet<string>): string | undefined {
  for (const l of labels) if (l !== PASS && l !== SKIP && l !== PASS_OR_SKIP) return undefined;
  return labels.size === 1 ? [...labels][0] : PASS_OR_SKIP;
}

export const pytest: OutputShape = {
  name: 'pytest',
  kind: 'test',
  command: /(^|[\s/])(py\.test|pytest)\b|-m pytest\b|\btox\b/,
  evidence: /^=+ (test session starts|FAILURES|ERRORS|short test summary info|warnings summary) =+$|^=+ .*\b(passed|failed)\b.* in [\d.]+s/,
  minEvidence: 1,
  rules: [
    { re: /^(FAILED|ERROR) |^=+ .*\b(passed|failed|errors?|no tests ran|skipped|deselected)\b.*=+$/, role: 'signal' },
    { re: /^=+ (FAILURES|ERRORS|short test summary info) =+$|^_{3,} .+ _{3,}$|^E\s|^>\s|^\S+:\d+: \w+$/, role: 'signal' },
    { re: /^collect(ed|ing) \d+ items?|^collected \d+ items?/, role: 'signal' },
    { re: /\s(FAILED|ERROR)(\s+\[\s*\d+%\])?$/, role: 'signal' },
    { re: /\sPASSED(\s+\[\s*\d+%\])?$/, role: 'routine', label: PASS },
    { re: /\s(SKIPPED|XFAIL|XPASS|xfail|skipped)\b.*(\[\s*\d+%\])?$/, role: 'routine', label: SKIP },
    { re: /^\S+\.py \.+\s*(\[\s*\d+%\])?$|^\.+\s*\[\s*\d+%\]$/, role: 'routine', label: PASS },
    { re: /^\S+\.py [.sx]+\s*(\[\s*\d+%\])?$|^[.sx]+\s*\[\s*\d+%\]$/, role: 'routine', label: PASS_OR_SKIP },
    { re: /^(platform \w+ -- Python|cachedir: |rootdir: |plugins: |configfile: |inifile: |hypothesis profile )/, role: 'routine', label: 'session header' },
  ],
};

export const unittest: OutputShape = {
  name: 'unittest',
  kind: 'test',
  command: /runtests\.py|-m unittest\b|manage\.py test\b|setup\.py test\b/,
  evidence: /^Ran \d+ tests? in [\d.]+s$|^(FAIL|ERROR): \w+ \(|\.\.\. ok$/,
  rules: [
    { re: /^(FAIL|ERROR|UNEXPECTED SUCCESS): |^Ran \d+ tests? in |^(OK|FAILED)( \(.*\))?$|\.\.\. (FAIL|ERROR)$/, role: 'signal' },
    { re: /\.\.\. ok$/, role: 'routine', label: PASS },
    { re: /\.\.\. (skipped\b.*|expected failure)$/, role: 'routine', label: SKIP },
    { re: /^\.{3,}$/, role: 'routine', label: PASS },
    { re: /^[.sx]{3,}$/, role: 'routine', label: PASS_OR_SKIP },
    {
      re: /^(Creating|Cloning|Destroying) test database for alias |^(Creating table|Running deferred SQL|Applying \S+\.\d+| {2}(Creating|Applying|Running|Synchronizing|Installing) )/,
      role: 'routine',
      label: 'test database set-up',
    },
  ],
};

export const sympyTest: OutputShape = {
  name: 'sympy-test',
  kind: 'test',
  command: /\bbin\/test\b|sympy\.test\(|\bdoctest\b/,
  evidence: /^=+ test process starts =+$|^\S+\.py\[\d+\] .*\[(OK|FAIL)\]$|^=+ tests finished: /,
  minEvidence: 1,
  rules: [
    { re: /\[FAIL\]$|^=+ tests finished: |^_{5,} .* _{5,}$|^(DO \*NOT\* COMMIT|FAILED)/, role: 'signal' },
    { re: /^\S+\.py\[\d+\] [.sfwTK]*\s*\[OK\]$/, role: 'routine', label: PASS },
    {
      re: /^(executable|architecture|cache|ground types|numpy|random seed|hash randomization|python version|sympy version):/,
      role: 'routine',
      label: 'runner header',
    },
  ],
};

export const jsTest: OutputShape = {
  name: 'js-test',
  kind: 'test',
  command: /\b(jest|vitest|mocha|ava|tap)\b|npm (run )?test\b|yarn test\b|pnpm test\b/,
  evidence: /^\s*(✓|✔|√) |^ (PASS|FAIL) |^Tests:\s+\d+|^Test Files\s+\d+|^\s+\d+ passing \(/,
  rules: [
    // (mocha's spec reporter numbers a failing test, `  1) name`, and its failure below by that number)
    { re: /^\s*(✕|×|✗|✘) |^ FAIL |^Tests?:?\s+\d+|^Test (Suites|Files):?\s|^\s*●|^\s+\d+ (passing|failing|pending)\b|^\s*FAIL\s|^\s+\d+\) \S/, role: 'signal' },
    { re: /^\s*(✓|✔|√) |^ PASS /, role: 'routine', label: PASS },
  ],
};

/** TAP: `node --test` when its output is not a terminal (Node 20 and 22), `prove`, node-tap. */
export const tap: OutputShape = {
  name: 'tap',
  kind: 'test',
  command: /\bnode\b.*\s--test\b|\bprove\b/,
  evidence: /^TAP version \d+$|^\s*(not )?ok \d+ - |^\s*# Subtest: /,
  rules: [
    { re: /^\s*not ok \d+|^Bail out!|^# (tests|suites|pass|fail|cancelled|skipped|todo) \d+$/, role: 'signal' },
    // a result's YAML block (duration, location) is indented under it
    { re: /^\s*ok \d+ .*# (SKIP|TODO)\b/i, role: 'routine', label: SKIP, withIndented: true },
    { re: /^\s*ok \d+\b/, role: 'routine', label: PASS, withIndented: true },
    // a test's `# Subtest:` line comes before its result, whatever it is
    { re: /^\s*# Subtest: /, role: 'routine', label: 'test progress' },
  ],
};

export const goTest: OutputShape = {
  name: 'go-test',
  kind: 'test',
  command: /\bgo (test|vet)\b/,
  evidence: /^(=== RUN|--- (PASS|FAIL):|ok\s+\S+\s+[\d.]+s)/,
  rules: [
    { re: /^\s*--- FAIL:|^FAIL\b|^panic:|^\S+_test\.go:\d+:/, role: 'signal' },
    // a test's `=== RUN` line comes before its outcome, whatever it is
    { re: /^=== (RUN|PAUSE|CONT|NAME)\s/, role: 'routine', label: 'test progress' },
    { re: /^\s*--- PASS:|^ok\s+\S+\s|^PASS$/, role: 'routine', label: PASS },
    { re: /^\s*--- SKIP:/, role: 'routine', label: SKIP },
  ],
};

export const cargoTest: OutputShape = {
  name: 'cargo',
  kind: 'test',
  // `cargo build`, `cargo check` and the build before `cargo test` print rustc's diagnostics
  diagnostics: true,
  command: /\bcargo (test|build|check|run|clippy|nextest)\b/,
  evidence: /^test \S+ \.\.\. (ok|FAILED|ignored)$|^\s+Compiling \S+ v\d/,
  rules: [
    { re: /^test \S+ \.\.\. FAILED$|^test result: |^failures:$|^thread '.*' panicked at/, role: 'signal' },
    { re: DIAGNOSTIC_SUMMARY, role: 'signal' },
    { re: /^test \S+ \.\.\. ok$/, role: 'routine', label: PASS },
    { re: /^test \S+ \.\.\. ignored$/, role: 'routine', label: SKIP },
    {
      re: /^\s+(Compiling|Checking|Downloaded|Downloading|Fresh|Updating|Locking|Adding|Blocking|Running|Doc-tests) /,
      role: 'routine',
      label: 'build progress',
    },
  ],
};

export const jvmBuild: OutputShape = {
  name: 'maven-gradle',
  kind: 'test',
  command: /\b(mvn|mvnw|gradle|gradlew)\b/,
  evidence: /^\[(INFO|ERROR|WARNING)\] |^> Task :/,
  rules: [
    {
      re: /^\[ERROR\]|Tests run:.*(Failures: [1-9]|Errors: [1-9])|BUILD (FAILURE|SUCCESS|FAILED)|\bFAILED$|^> Task .*FAILED$|^\[INFO\] .* FAILURE \[/,
      role: 'signal',
    },
    {
      re: /^\[INFO\] (Download(ing|ed)|Building (jar|war)|--- |Tests run: \d+, Failures: 0, Errors: 0)|^Progress \(|^Download(ing|ed) |^> Task \S+( (UP-TO-DATE|NO-SOURCE|FROM-CACHE|SKIPPED))?$/,
      role: 'routine',
      label: 'build progress',
    },
    // the rest of Maven's INFO level is its progress too (the project, the plugins, timings); what
    // failed is an ERROR, and a line naming what the agent asked about stays
    { re: /^\[INFO\]( |$)/, role: 'routine', label: 'build progress' },
    { re: /\bPASSED$/, role: 'routine', label: PASS },
  ],
};

export const TEST_SHAPES = [pytest, unittest, sympyTest, jsTest, tap, goTest, cargoTest, jvmBuild];
