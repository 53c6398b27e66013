import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { syntaxErrorRows } from '../../../src/core/repair/validate.js';
import { buildSyntaxIndex, checkSyntax, checkSyntaxSync, detectLanguage, ensureGrammar } from '../../../src/core/syntax/index.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/syntax/', import.meta.url));
const FILES = [
  'sample.py',
  'sample.js',
  'sample.ts',
  'sample.tsx',
  'sample.go',
  'Sample.java',
  'sample.rs',
  'sample.c',
  'sample.cc',
  'sample.rb',
  'sample.php',
  'Sample.cs',
];

describe.each(FILES)('checkSyntax %s', (file) => {
  const text = readFileSync(FIXTURES + file, 'utf8');
  const lang = detectLanguage(file, text);

  it('accepts the valid file', async () => {
    expect(await checkSyntax(text, lang)).toEqual({ ok: true, hasGrammar: true });
  });

  it('rejects it with the closing line of its first multi-line bracket or block removed', async () => {
    await ensureGrammar(lang);
    const lines = text.split('\n');
    const opener = buildSyntaxIndex(lines, lang).lines.find((l) => l.closers.length > 0)!;
    const broken = lines.filter((_, i) => i !== opener.closers[0]).join('\n');
    expect(checkSyntaxSync(broken, lang)).toEqual({ ok: false, hasGrammar: true });
  });
});

describe('checkSyntax without a grammar', () => {
  it('reports hasGrammar false for kotlin and unknown languages', async () => {
    expect(await checkSyntax('fun main() {', 'kotlin')).toEqual({ ok: true, hasGrammar: false });
    expect(await checkSyntax('whatever', 'no-such-language')).toEqual({ ok: true, hasGrammar: false });
  });

  it('checks PHP fragments that lack the opening tag', async () => {
    expect((await checkSyntax('function f($a) { return $a; }', 'php')).ok).toBe(true);
    expect((await checkSyntax('function f($a) { return $a; ', 'php')).ok).toBe(false);
  });

  it('flags MISSING nodes', async () => {
    // tree-sitter recovers `int f() { return 1 }` by inserting a MISSING ";"
    expect((await checkSyntax('int f() { return 1 }', 'c')).ok).toBe(false);
  });
});

describe('syntaxErrorRows when tree-sitter hides the error', () => {
  // A real pruned output (pytest's testing/test_unittest.py at 4x, before this fix): a marker at
  // column 0 followed by the indented middle of a string. The tree has an error, but no ERROR or
  // MISSING node is reachable: the fixer used to take it for a clean parse.
  const text = readFileSync(`${FIXTURES}hidden-error.py.txt`, 'utf8');

  it('points at the innermost node that has the error instead of reporting a clean parse', async () => {
    await ensureGrammar('python');
    expect((await checkSyntax(text, 'python')).ok).toBe(false);
    const rows = syntaxErrorRows(text, 'python', 4)!;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toBeLessThan(text.split('\n').indexOf('# ... 3 lines omitted (853-855)'));
    expect(syntaxErrorRows('def f():\n    return 1\n', 'python', 4)).toEqual([]);
  });
});
