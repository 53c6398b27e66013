/**
 * Compilers, linters and type checkers: every error stays, whole; warnings stay or fold as whole
 * diagnostics (./diagnostics.ts finds them, ../blocks.ts decides); the summary lines stay.
 */
import { DIAGNOSTIC_SUMMARY } from './diagnostics.js';
import type { OutputShape } from './shape.js';

export const compilers: OutputShape = {
  name: 'compiler',
  kind: 'build',
  diagnostics: true,
  command:
    /\b(tsc|eslint|gcc|g\+\+|clang|clang\+\+|cc|c\+\+|make|cmake|ninja|rustc|mypy|pyright|ruff|flake8|pylint|pyflakes|javac|kotlinc|go build|dotnet build|biome)\b/,
  evidence: /^\S+\(\d+,\d+\): error TS\d+|^\S+:\d+:\d+: (fatal )?(error|warning|note):|^\S+:\d+: error: |^\S+:\d+:\d+: [A-Z]+\d+ |^(error|warning)(\[\w+\])?: /,
  rules: [
    {
      re: /error TS\d+:|^\S+:\d+(:\d+)?: (fatal )?error[:[]|^error(\[\w+\])?: |^\s+--> \S+:\d+:\d+|^\S+\.java:\d+: error:|^\s+\d+:\d+\s+error\s|^\S+:\d+:\d+: [EF]\d+ |^make(\[\d+\])?: \*\*\*|^Error: /,
      role: 'signal',
    },
    { re: /^(Success: no issues found|All checks passed!)/, role: 'signal' },
    { re: DIAGNOSTIC_SUMMARY, role: 'signal' },
    // a note in a system header (a candidate the compiler tried, a step of a template's
    // instantiation), with its source line and caret, is the standard library's, as a frame outside
    // the project is: the errors and the lines in the project's files stay
    {
      re: /^\/usr\/(local\/)?(include|lib)\/\S+:\d+:\d+:\s+(note: |required (from|by) )/,
      role: 'routine',
      label: 'notes in system headers',
      withIndented: true,
    },
    {
      re: /^\s*(CC|CXX|LD|AR|GEN|INSTALL)\s+\S+$|^\[\s*\d+%\] (Building|Linking|Built target)|^make(\[\d+\])?: (Entering|Leaving) directory/,
      role: 'routine',
      label: 'build progress',
    },
  ],
};

export const BUILD_SHAPES = [compilers];
