/** The CLI's one parser of numeric option values: a rule (a request field's, or intAtLeast/numberIn) and a usage error otherwise. */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { intAtLeast, numberIn, numberOption } from '../../src/cli/io.js';
import { FIELD_RULES } from '../../src/core/request.js';

const bad = (parse: (v: string) => number, value: string): string => {
  try {
    parse(value);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return (err as Error).message;
  }
  throw new Error(`${value} was accepted`);
};

describe('numberOption', () => {
  it('takes what the rule takes', () => {
    expect(numberOption(FIELD_RULES.ratio)('4')).toBe(4);
    expect(numberOption(FIELD_RULES.unit)('0.25')).toBe(0.25);
    expect(numberOption(intAtLeast(0))('0')).toBe(0);
    expect(numberOption(numberIn(0, 8))('8')).toBe(8);
  });

  it('refuses anything else with a message, never NaN', () => {
    for (const v of ['abc', '', ' ', 'NaN', '1e', '0x']) expect(bad(numberOption(numberIn(0)), v)).toBe('not a number');
    expect(bad(numberOption(FIELD_RULES.ratio), '0.5')).toBe('must be >= 1');
    expect(bad(numberOption(FIELD_RULES.unit), '2')).toBe('must be <= 1');
    expect(bad(numberOption(intAtLeast(1)), '1.5')).toBe('must be an integer');
    expect(bad(numberOption(numberIn(0, 8)), 'Infinity')).toMatch(/must be/);
    // decimal only: Number() reads these as 16, 3, 7 and 0
    for (const v of ['0x10', '0b11', '0o7', '0x']) expect(bad(numberOption(numberIn(0)), v)).toBe('not a number');
    expect(numberOption(numberIn(0))('1e3')).toBe(1000);
    expect(numberOption(numberIn(0))(' .5')).toBe(0.5);
    expect(numberOption(numberIn(0))('+2')).toBe(2);
  });
});
