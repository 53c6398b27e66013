/**
 * GNU grep's pattern dialects translated to RE2 (src/grep/syntax.ts): checked line by line
 * against the real GNU grep where it is installed, and for what it refuses.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileGrepMatcher, type GrepMatcherOptions } from '../../src/grep/linePattern.js';
import { GrepPatternError, grepPatternReadings } from '../../src/grep/syntax.js';
import { countMatchWork } from '../helpers/work.js';

const GREP = '/usr/bin/grep';
const isGnuGrep = existsSync(GREP) && /GNU grep/.test(spawnSync(GREP, ['--version'], { encoding: 'utf8' }).stdout ?? '');

const LINES = [
  'abc',
  'a+b',
  '(a)',
  'a|b',
  '{1}',
  'a{2}',
  'aa',
  '',
  'x*y',
  '^a',
  'a$',
  '[x]',
  '\\',
  'foo bar',
  'foo_bar',
  'é',
  'a.b',
  '-',
  ':alpha:',
  'A',
  'ABC',
  'ab ab',
  'a b c',
  '   ',
  'tab\there',
  '1234',
  '}',
  '{',
  '*',
  '?',
  '+',
  'a\\b',
  '$x',
  'x^y',
  'b',
  'ba',
  'aab',
  'a,b',
  ']',
  '[',
  'a]',
  'a-b',
  'É',
  'a1',
  'Zz',
  '::',
  '{,}',
  'a{,2}',
  'a{1,2}',
  'def get_records(self, when):',
  'def select_proxy(url, proxies):',
  '    return self._item.stash[caplog_records_key].get(when, [])',
  'class LogCaptureHandler(logging_StreamHandler):',
  'x = count + 1',
  'counter += 1',
  '#include <stdio.h>',
];

const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-grepsyntax-'));
const linesFile = path.join(tmp, 'lines.txt');
writeFileSync(linesFile, `${LINES.join('\n')}\n`);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Flag = '-i' | '-w' | '-x' | '-o';
const DIALECT_FLAG = { basic: '-G', extended: '-E', fixed: '-F', perl: '-P' } as const;

/** What GNU grep prints for `-n FLAGS -e P...` over LINES, and its exit status. */
function gnu(dialect: GrepMatcherOptions['dialect'], patterns: string[], flags: Flag[]) {
  const args = [DIALECT_FLAG[dialect], '-n', ...flags, ...patterns.flatMap((p) => ['-e', p]), linesFile];
  const r = spawnSync(GREP, args, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
  return { status: r.status, stdout: r.stdout };
}

/** The same through compileGrepMatcher. */
function ours(dialect: GrepMatcherOptions['dialect'], patterns: string[], flags: Flag[]) {
  let m;
  try {
    m = compileGrepMatcher(patterns, {
      dialect,
      ignoreCase: flags.includes('-i'),
      wordRegexp: flags.includes('-w'),
      lineRegexp: flags.includes('-x'),
      onlyMatching: flags.includes('-o'),
    });
  } catch (err) {
    expect(err).toBeInstanceOf(GrepPatternError);
    return { status: 2, stdout: '' };
  }
  let out = '';
  let selected = false;
  LINES.forEach((line, i) => {
    if (!m.test(line)) return;
    selected = true;
    if (flags.includes('-o')) for (const [s, e] of m.matches(line)) out += `${i + 1}:${line.slice(s, e)}\n`;
    else out += `${i + 1}:${line}\n`;
  });
  return { status: selected ? 0 : 1, stdout: out };
}

// [dialect, patterns, flags]: everyday searches first, then the corners of each dialect.
const CASES: Array<[GrepMatcherOptions['dialect'], string[], Flag[]]> = [
  // basic (the default): \| \+ \? \( \) \{ \} are operators, | + ? ( ) { } literals
  ['basic', ['def get_records\\|def select_proxy'], []],
  ['basic', ['def \\(get\\|select\\)_'], []],
  ['basic', ['a|b'], []],
  ['basic', ['a+b'], []],
  ['basic', ['(a)'], []],
  ['basic', ['a\\{2\\}'], []],
  ['basic', ['a{2}'], []],
  ['basic', ['a\\{1,\\}b'], []],
  ['basic', ['a\\{,2\\}b'], []],
  ['basic', ['a\\+b'], []],
  ['basic', ['ab\\?c'], []],
  ['basic', ['*a'], []],
  ['basic', ['\\(*a\\)'], []],
  ['basic', ['^*'], []],
  ['basic', ['x^y'], []],
  ['basic', ['a$b'], []],
  ['basic', ['a$\\|^b'], []],
  ['basic', ['\\(^a\\)'], []],
  ['basic', ['\\{1\\}'], []],
  ['basic', ['[[:alpha:]]\\{3\\}'], []],
  ['basic', ['[[:upper:]]'], ['-i']],
  ['basic', ['[^[:alnum:] ]'], []],
  ['basic', ['[[:punct:]]'], []],
  ['basic', ['[[:space:]]'], []],
  ['basic', ['[[:digit:]]\\+'], ['-o']],
  ['basic', ['[]a]'], []],
  ['basic', ['[^]a]'], []],
  ['basic', ['[a-]'], []],
  ['basic', ['[\\]'], []],
  ['basic', ['[%--]'], []],
  ['basic', ['[[.-.]]'], []],
  ['basic', ['[[=a=]]'], []],
  ['basic', ['\\w\\+'], ['-o']],
  ['basic', ['\\W'], []],
  ['basic', ['\\s'], []],
  ['basic', ['\\<count\\>'], []],
  ['basic', ['\\bcount'], []],
  ['basic', ['count\\B'], []],
  ['basic', ['\\d'], []],
  ['basic', ['a\\.b'], []],
  ['basic', ['a.b'], []],
  ['basic', ['\\`a'], []],
  ['basic', ["b\\'"], []],
  ['basic', ['count'], ['-w']],
  ['basic', ['a'], ['-w']],
  ['basic', ['a b'], ['-x']],
  ['basic', ['a\\|ab\\|abc'], ['-o']],
  ['basic', ['self\\.[a-z_]*'], ['-o']],
  ['basic', ['a'], ['-i', '-w']],
  ['basic', ['A'], ['-i', '-x']],
  ['basic', ['b\\B\\?b'], []],
  ['basic', ['a\\b\\{2\\}'], []],
  ['basic', [''], []],
  ['basic', [''], ['-w']],
  ['basic', ['a', 'b'], []],
  ['basic', ['foo', 'count', ''], ['-x']],
  // extended (-E)
  ['extended', ['def (get|select)_[a-z]+'], []],
  ['extended', ['a|b'], []],
  ['extended', ['\\(a\\)'], []],
  ['extended', ['a{2}'], []],
  ['extended', ['a{,2}b'], []],
  ['extended', ['a{'], []],
  ['extended', ['a{x}'], []],
  ['extended', ['a{1'], []],
  ['extended', ['a)'], []],
  ['extended', ['()'], []],
  ['extended', ['(|a)b'], []],
  ['extended', ['a||b'], []],
  ['extended', ['*a'], []],
  ['extended', ['a|*b'], []],
  ['extended', ['(+a)'], []],
  ['extended', ['^*a'], []],
  ['extended', ['x^y'], []],
  ['extended', ['a$b'], []],
  ['extended', ['a**'], []],
  ['extended', ['a+?'], []],
  ['extended', ['(a|ab)(c|bcd)'], ['-o']],
  ['extended', ['a|ab|abc'], ['-o']],
  ['extended', ['[0-9]+'], ['-o']],
  ['extended', ['\\<[a-z]+_[a-z]+\\>'], ['-o']],
  ['extended', ['a\\b*'], []],
  ['extended', ['\\<*a'], []],
  ['extended', ['{1}a'], []],
  ['extended', ['self|proxies'], ['-w']],
  ['extended', ['(self|count)'], ['-w', '-o']],
  ['extended', ['[a-z]+'], ['-x']],
  ['extended', ['CLASS|DEF'], ['-i', '-o']],
  // fixed strings (-F)
  ['fixed', ['a.b'], []],
  ['fixed', ['(a)'], []],
  ['fixed', ['a', 'ab'], ['-o']],
  ['fixed', ['[x]', '\\'], []],
  ['fixed', ['count'], ['-w']],
  ['fixed', ['COUNT'], ['-i']],
  ['fixed', ['a b'], ['-x']],
  // perl (-P)
  ['perl', ['def \\w+\\('], []],
  ['perl', ['(?<=def )\\w+'], ['-o']],
  ['perl', ['(?<!_)records'], []],
  ['perl', ['\\d+'], ['-o']],
  ['perl', ['a+?'], ['-o']],
  ['perl', ['(?i)abc'], []],
  ['perl', ['\\bcount\\b'], []],
  ['perl', ['x\\h'], []],
  ['perl', ['\\Qa.b\\E'], []],
  ['perl', ['(?:a|ab)(?:c|bcd)'], ['-o']],
  ['perl', ['[[:alpha:]]+'], ['-w', '-o']],
  ['perl', ['a{2}'], ['-x']],
];

describe.runIf(isGnuGrep)('grep patterns against GNU grep', () => {
  it.each(CASES.map((c) => [`${DIALECT_FLAG[c[0]]} ${c[2].join(' ')} ${c[1].map((p) => JSON.stringify(p)).join(' ')}`, ...c] as const))(
    '%s',
    (_name, dialect, patterns, flags) => {
      expect(ours(dialect, patterns, flags)).toEqual(gnu(dialect, patterns, flags));
    },
  );

  it('reports the syntax errors GNU grep reports (exit 2)', () => {
    const bad: Array<[GrepMatcherOptions['dialect'], string]> = [
      ['basic', '\\(a'],
      ['basic', 'a\\)'],
      ['basic', '[a'],
      ['basic', 'a\\'],
      ['basic', '[z-a]'],
      ['basic', '[a-c-e]'],
      ['basic', '[[:foo:]]'],
      ['basic', '[:alpha:]'],
      ['basic', 'a\\{1'],
      ['basic', 'a\\{x\\}'],
      ['extended', '(a'],
      ['extended', 'a{}'],
      ['extended', 'a{2,1}'],
      ['extended', 'a{40000}'],
      ['perl', 'a**'],
      ['perl', '[a'],
    ];
    for (const [dialect, p] of bad) {
      expect(gnu(dialect, [p], []).status, `${dialect} ${p}`).toBe(2);
      expect(ours(dialect, [p], []).status, `${dialect} ${p}`).toBe(2);
    }
  });
});

describe('what RE2 cannot match in linear time is refused with a reason', () => {
  const refused: Array<[GrepMatcherOptions['dialect'], string, RegExp]> = [
    ['basic', '\\(a\\)\\1', /back-references/],
    ['extended', '(a)\\1', /back-references/],
    ['perl', '(a)\\1', /back-references/],
    ['perl', 'foo(?=bar)', /lookahead/],
    ['perl', 'foo(?!bar)', /lookahead/],
    ['perl', '(?>a+)b', /atomic/],
    ['perl', 'a++', /possessive/],
    ['perl', 'a\\Kb', /\\K/],
    ['perl', '(?R)', /recursion/],
    ['perl', '(?x) a', /inline flag/],
    ['extended', 'a{1001}', /over 1000/],
  ];
  it.each(refused)('%s %s', (dialect, p, reason) => {
    expect(() => compileGrepMatcher([p], { dialect })).toThrow(GrepPatternError);
    expect(() => compileGrepMatcher([p], { dialect })).toThrow(reason);
  });
});

describe('translation', () => {
  it('keeps everyday patterns readable and linear', () => {
    expect(grepPatternReadings('def a\\|def b', 'basic').dfa).toBe('def a|def b');
    expect(grepPatternReadings('f(x)+', 'basic').dfa).toBe('f\\(x\\)\\+');
    expect(grepPatternReadings('f(x)+', 'extended').dfa).toBe('f(?:x)+');
    expect(grepPatternReadings('a.b', 'fixed').dfa).toBe('a\\.b');
  });

  it('answers catastrophic patterns in every dialect reading each character about once', () => {
    const line = `${'a'.repeat(5000)}b`;
    for (const [dialect, p] of [
      ['basic', '\\(a\\+\\)\\+$'],
      ['extended', '(a+)+$'],
      ['extended', '(a|aa)*c'],
      ['perl', '(a+)+$'],
      ['perl', '(?<=(a|aa)*)c'],
    ] as const) {
      const matcher = compileGrepMatcher([p], { dialect });
      const { value, reads } = countMatchWork(() => matcher.test(line), { line });
      expect(value).toBe(false);
      expect(reads).toBeLessThanOrEqual(2 * line.length + 2);
    }
  });
});
