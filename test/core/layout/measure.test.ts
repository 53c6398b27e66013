import { describe, expect, it } from 'vitest';
import type { RenderPiece } from '../../../src/core/layout/layout.js';
import { CHARS, TOKENS } from '../../../src/core/layout/measure.js';
import { countTokens } from '../../../src/core/tokens/count.js';

const piece = (line: string, eol: string): RenderPiece => ({ line, eol, source: 0, segment: 0, code: line });

describe('measures', () => {
  it('characters: a piece costs its line and terminator, at least one character for the last', () => {
    expect(CHARS.estimate([piece('abc', '\r\n'), piece('de', '')])).toBe(8);
    expect(CHARS.exact('abc\r\nde')).toBe(7);
    expect(CHARS.unit).toBe('characters');
  });

  it('tokens: the per-line estimate bounds the exact count', () => {
    const pieces = [piece('def f(x):', '\n'), piece('    return x', '\n')];
    expect(TOKENS.estimate(pieces)).toBeGreaterThanOrEqual(TOKENS.exact('def f(x):\n    return x\n'));
    expect(TOKENS.exact('hello world')).toBe(countTokens('hello world'));
  });
});
