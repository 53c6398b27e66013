import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildSyntaxIndex, checkSyntax, checkSyntaxSync, detectLanguage, ensureGrammar } from '../../../src/core/syntax/index.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/syntax/', import.meta.url));
const FILES = ['sample.py', 'sample.js', 'sample.ts', 'sample.tsx', 'sample.go', 'Sample.java', 'sample.rs', 'sample.c', 'sample.cc', 'sample.rb', 'sample.php', 'Sample.cs'];

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
