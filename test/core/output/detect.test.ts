import { describe, expect, it } from 'vitest';
import { detectShape } from '../../../src/core/output/detect.js';
import { fileReadOf } from '../../../src/core/output/readCommand.js';

describe('detectShape', () => {
  it.each([
    ['pytest -x tests/test_a.py', 'pytest'],
    ['cd /testbed && python -m pytest -q', 'pytest'],
    ['python3 tests/runtests.py queries', 'unittest'],
    ['bin/test sympy/core', 'sympy-test'],
    ['npx vitest run', 'js-test'],
    ['go test ./...', 'go-test'],
    ['cargo test', 'cargo'],
    ['./gradlew test', 'maven-gradle'],
    ['npx tsc --noEmit', 'compiler'],
    ['mypy src', 'compiler'],
    ['git diff', 'diff'],
    ['git status', 'git'],
    ['pip install -e .', 'pip'],
    ['npm install', 'npm'],
    ['apt-get install -y jq', 'apt'],
    ['ls -R src', 'listing'],
    ['find . -name "*.py"', 'listing'],
    ['python3 reproduce.py', 'text'],
  ])('%s -> %s', (command, shape) => {
    expect(detectShape(['some output'], command).main.name).toBe(shape);
  });

  it('recognises a shape from its text when the command is unknown', () => {
    const log = [
      '============================= test session starts ==============================',
      'collected 2 items',
      '',
      'a.py ..',
      '',
      '============================== 2 passed in 0.01s ===============================',
    ];
    expect(detectShape(log, undefined).main.name).toBe('pytest');
    expect(detectShape(['diff --git a/x b/x', '--- a/x', '+++ b/x', '@@ -1,2 +1,2 @@'], 'bash run.sh').main.name).toBe('diff');
    expect(detectShape(['hello'], undefined).main.name).toBe('text');
  });

  it('prefers the shape the command names and the text shows (pip install && pytest prints both)', () => {
    const d = detectShape(
      ['Requirement already satisfied: a', 'Collecting b', '==== test session starts ====', '==== 3 passed in 0.1s ===='],
      'pip install -e . && pytest',
    );
    expect(['pytest', 'pip']).toContain(d.main.name);
    expect(d.also.map((s) => s.name)).toContain(d.main.name === 'pytest' ? 'pip' : 'pytest');
  });
});

describe('fileReadOf', () => {
  it.each([
    ['cat a/b.py', { path: 'a/b.py' }],
    ['cd /testbed && cat -n x.py', { path: 'x.py' }],
    // a command that names which lines is a window the agent chose (range), from line 1 too
    ['nl -ba django/forms/models.py | head -n 100', { path: 'django/forms/models.py', range: true }],
    ["nl -ba x.py | sed -n '10,20p'", { path: 'x.py', range: true }],
    ["sed -n '120,180p' a.py", { path: 'a.py', firstLine: 120, range: true }],
    ["sed -n '1,843p' a.py", { path: 'a.py', range: true }],
    ['head -n 50 f.py', { path: 'f.py', range: true }],
  ])('%s is a read', (command, read) => {
    expect(fileReadOf(command)).toEqual(read);
  });

  it.each(["cat <<'EOF' > x.py", 'python3 x.py', 'cat a.py b.py', 'cat *.py', 'grep -rn foo .', 'cat test.log', 'cat out.txt', ''])(
    '%s is not a read of one file',
    (command) => {
      expect(fileReadOf(command)).toBeNull();
    },
  );
});
