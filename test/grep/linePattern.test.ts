/** The grep line matcher: linear time on any pattern, the syntax a search needs, clear errors. */
import { describe, expect, it } from 'vitest';
import { SkimError } from '../../src/core/errors.js';
import { compileLinePattern } from '../../src/grep/linePattern.js';
import { countMatchWork } from '../helpers/work.js';

describe('compileLinePattern', () => {
  it('answers catastrophic patterns reading each character about once (a backtracking RegExp never returns on these)', () => {
    const cases: Array<[string, string, boolean]> = [
      ['(a+)+$', `${'a'.repeat(100)}b`, false],
      ['(a+)+$', 'a'.repeat(100), true],
      ['(a|aa)*c', 'a'.repeat(5000), false],
      ['(\\w+\\s?)+$', `${'word '.repeat(20_000)}!`, false],
      ['(.*)*(.*)*Z', 'ab'.repeat(1_000_000), false],
    ];
    for (const [pattern, line, expected] of cases) {
      const re = compileLinePattern(pattern);
      // no JavaScript RegExp sees the line, and RE2 steps through it once (literal prefilters may skip it)
      const { value, reads } = countMatchWork(() => re.test(line), { line });
      expect(value).toBe(expected);
      expect(reads).toBeLessThanOrEqual(2 * line.length + 2);
    }
  });

  it('takes the syntax of everyday searches', () => {
    const yes: Array<[string, string]> = [
      ['def \\w+_proxy\\(', 'def select_proxy(url, proxies):'],
      ['\\bcount\\b', 'x = count + 1'],
      ['^\\s*(?:export )?function', '  export function f() {'],
      ['(?<name>get|set)_records', 'caplog.get_records()'],
      ['proxies\\[', 'proxies["https"]'],
      ['\\d{3,}', 'port 8080'],
      ['a\\/b|c\\-d', 'path a/b'],
      ['[^\\]]+\\]', 'x[0]'],
    ];
    for (const [pattern, line] of yes) expect(compileLinePattern(pattern).test(line)).toBe(true);
    expect(compileLinePattern('\\bcount\\b').test('counter')).toBe(false);
  });

  it('ignores case and takes literal strings when asked', () => {
    expect(compileLinePattern('select_proxy', { ignoreCase: true }).test('SELECT_PROXY')).toBe(true);
    expect(compileLinePattern('select_proxy').test('SELECT_PROXY')).toBe(false);
    expect(compileLinePattern('a.b(c)[d]\\e', { fixedStrings: true }).test('x a.b(c)[d]\\e y')).toBe(true);
    expect(compileLinePattern('a.b', { fixedStrings: true }).test('axb')).toBe(false);
  });

  it('refuses what it cannot match in linear time with a usage error that says why', () => {
    for (const pattern of ['foo(?=bar)', '(a)\\1', '(?<!x)y']) {
      let err: unknown;
      try {
        compileLinePattern(pattern);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SkimError);
      expect((err as SkimError).code).toBe('EUSAGE');
      expect((err as SkimError).message).toMatch(/^invalid regular expression \/.+\/: .+ \(patterns use RE2 syntax.*lookahead/);
    }
    expect(() => compileLinePattern('(unclosed')).toThrow(/^invalid regular expression \/\(unclosed\/: missing closing \)/);
  });
});
