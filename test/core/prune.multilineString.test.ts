/**
 * A kept line inside a multi-line string literal (or a block comment) needs the string's first and last line: without
 * the closing quotes the pruned output leaves the string unterminated, the parser reports an error
 * far below (wherever the next quotes happen to be), and syntax repair then drops kept lines there
 * one by one. Seen on sympy's printing/repr.py (a deprecation message in an f"""...""" string).
 */
import { describe, expect, it } from 'vitest';
import { pruneWith } from '../../src/core/prune.js';
import { buildSyntaxIndex, checkSyntax, ensureGrammar } from '../../src/core/syntax/index.js';
import type { Scorer } from '../../src/core/types.js';
import { checkInvariants } from '../helpers/invariants.js';

/** Scores 0.9 on lines containing `hot`, 0.001 elsewhere: threshold mode keeps just those. */
function hotLines(hot: string): Scorer {
  return {
    name: 'frozen',
    defaultThreshold: 0.5,
    score: ({ lines }) => ({ keep: Float64Array.from(lines, (l) => (l.includes(hot) ? 0.9 : 0.001)), docScore: 1 }),
  };
}

const filler = (k: number, indent: string) => Array.from({ length: k }, (_, i) => `${indent}x${i} = compute(${i})`).join('\n');

const PY = `from sympy.utilities.exceptions import sympy_deprecation_warning


class ReprPrinter:
    def _print_Permutation(self, expr):
        perm_cyclic = expr.print_cyclic
        if perm_cyclic is not None:
            sympy_deprecation_warning(
                f"""
                Setting Permutation.print_cyclic is deprecated. Instead use
                init_printing(perm_cyclic={perm_cyclic}).
                """,
                deprecated_since_version="1.6",
            )
${filler(60, '        ')}
        return expr.__repr__()

    def emptyPrinter(self, expr):
        """
        The fallback printer.
        """
${filler(60, '        ')}
        return str(expr)
`;

const TS = `export function banner(name: string): string {
${filler(60, '  ')
  .replace(/^(\s+)/gm, '$1const ')
  .replace(/$/gm, ';')}
  const text = \`
    Welcome, \${name}.
    The session banner is deprecated; call greet() instead.
    Bye.
  \`;
${filler(60, '  ')
  .replace(/^(\s+)/gm, '$1const ')
  .replace(/$/gm, ';')}
  return text;
}
`;

const RS = `/*!
This crate provides small helpers for command line tools.

Blank lines inside a block comment are not comment lines to the syntax index.

The escape routines provide the reverse transformation, for error messages.

More prose.
*/

pub fn escape(input: &str) -> String {
${filler(60, '    ')
  .replace(/^(\s+)/gm, '$1let ')
  .replace(/$/gm, ';')}
    input.to_string()
}
`;

describe('multi-line strings and block comments in pruned output', () => {
  it("the syntax index pairs a multi-line string's first line with its last, like a bracket", async () => {
    await ensureGrammar('python');
    const lines = PY.split('\n');
    const idx = buildSyntaxIndex(lines, 'python');
    const open = lines.findIndex((l) => l.trim() === 'f"""');
    const close = lines.findIndex((l, i) => i > open && l.trim() === '""",');
    expect(idx.lines[open]!.closers).toContain(close);
  });

  it('an implicit concatenation of one-line strings is not paired: its middle lines can still go', async () => {
    await ensureGrammar('python');
    const lines = ['raise UsageError(', '    "not a level name; "', '    "pass the number "', '    "instead: {}".format(x)', ')'];
    const idx = buildSyntaxIndex(lines, 'python');
    expect(idx.lines[1]!.closers).toEqual([]);
    expect(idx.lines[0]!.closers).toEqual([4]);
  });

  for (const [lang, code, hot, opener, closer] of [
    ['python', PY, 'print_cyclic is deprecated', 'f"""', '""",'],
    ['typescript', TS, 'banner is deprecated', 'const text = `', '`;'],
    ['rust', RS, 'reverse transformation', '/*!', '*/'],
  ] as const) {
    it(`${lang}: keeping a line inside the string or block comment brings back its opening and closing line, and nothing is dropped`, async () => {
      // the calibrated τ itself, not the read policy (which leaves a file this small whole)
      const req = { code, query: 'deprecated', language: lang, relativeThreshold: 0.5 };
      const r = await pruneWith(hotLines(hot), req);
      expect(checkInvariants(code, r)).toBeNull();
      expect(r.warnings).toEqual([]);
      const lines = code.split('\n');
      const kept = (needle: string) => r.keepMask[lines.findIndex((l) => l.trim() === needle || l.includes(needle))];
      expect(kept(hot)).toBe(1);
      expect(kept(opener)).toBe(1);
      expect(kept(closer)).toBe(1);
      expect(r.omitted.length).toBeGreaterThan(0);
      expect((await checkSyntax(r.text, lang)).ok).toBe(true);
    });
  }
});
