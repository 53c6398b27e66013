import { describe, expect, it } from 'vitest';
import { buildFallbackIndex, buildSyntaxIndex, ensureGrammar, grammarAvailable } from '../../../src/core/syntax/index.js';
import type { SyntaxIndex } from '../../../src/core/types.js';

function wellFormed(idx: SyntaxIndex, n: number): void {
  expect(idx.lines).toHaveLength(n);
  for (const [i, l] of idx.lines.entries()) {
    expect(l.stmtStart).toBeLessThanOrEqual(i);
    expect(l.stmtEnd).toBeGreaterThanOrEqual(i);
    expect(l.depth).toBe(l.scopes.length);
    for (const c of l.closers) expect(c).toBeGreaterThan(i);
    for (const s of l.scopes) expect(idx.scopes[s]).toBeDefined();
  }
  for (const s of idx.scopes) {
    expect(s.start).toBeLessThanOrEqual(s.headerEnd);
    expect(s.headerEnd).toBeLessThanOrEqual(s.end);
    expect(s.end).toBeLessThan(n);
  }
}

describe('grammars', () => {
  it('share one load across concurrent callers and report languages without grammar', async () => {
    const results = await Promise.all([ensureGrammar('python'), ensureGrammar('py'), ensureGrammar('python')]);
    expect(results).toEqual([true, true, true]);
    expect(await ensureGrammar('kotlin')).toBe(false);
    expect(grammarAvailable('c#')).toBe(true);
    expect(grammarAvailable('yaml')).toBe(false);
  });
});

describe('buildSyntaxIndex never throws', () => {
  it('handles empty input', async () => {
    await ensureGrammar('python');
    for (const lang of ['python', 'kotlin', 'text']) {
      const idx = buildSyntaxIndex([], lang);
      expect(idx.lines).toEqual([]);
      expect(idx.scopes).toEqual([]);
    }
    wellFormed(buildSyntaxIndex([''], 'python'), 1);
  });

  it('handles a 2 MB single line', async () => {
    await ensureGrammar('javascript');
    const line = 'var a=' + '[1,2,{b:"x"}],'.repeat(150_000) + '0;';
    for (const lang of ['javascript', 'json', 'text']) wellFormed(buildSyntaxIndex([line], lang), 1);
    // minified code is not worth a multi-second parse: the fallback takes it
    expect(buildSyntaxIndex([line], 'javascript').hasGrammar).toBe(false);
  });

  it('handles binary garbage', async () => {
    await ensureGrammar('c');
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const lines = Array.from({ length: 100 }, () => String.fromCharCode(...Array.from({ length: 80 }, () => Math.floor(rnd() * 256))));
    for (const lang of ['c', 'python', 'kotlin', 'text', 'yaml']) {
      const idx = buildSyntaxIndex(lines, lang);
      wellFormed(idx, lines.length);
    }
  });

  it('handles unbalanced brackets and deep nesting', async () => {
    await ensureGrammar('python');
    const lines = ['def f(:', ...Array.from({ length: 1000 }, (_, i) => ' '.repeat(Math.min(i, 200)) + '(['), '}}}]])'];
    wellFormed(buildSyntaxIndex(lines, 'python'), lines.length);
    wellFormed(buildFallbackIndex(lines, 'kotlin'), lines.length);
  });

  it('uses the fallback when the grammar was not loaded', () => {
    const idx = buildSyntaxIndex(['fun main() {', '  println(1)', '}'], 'swift');
    expect(idx.hasGrammar).toBe(false);
    expect(idx.lines[0]!.closers).toEqual([2]);
  });
});

describe('fallback index', () => {
  it('builds scopes from indentation for yaml', () => {
    const lines = ['services:', '  web:', '    image: nginx', '    ports:', '      - 80', 'volumes: {}'];
    const idx = buildFallbackIndex(lines, 'yaml');
    wellFormed(idx, lines.length);
    const services = idx.scopes.find((s) => s.start === 0)!;
    expect(services.end).toBe(4);
    expect(services.name).toBe('services');
    expect(idx.lines[2]!.scopes.map((s) => idx.scopes[s]!.start)).toEqual([0, 1]);
    expect(idx.lines[0]!.kind).toBe('code');
  });

  it('builds sections for markdown', () => {
    const lines = ['# Title', 'intro', '## Usage', 'run it', '## API', '```', '# not a heading', '```'];
    const idx = buildFallbackIndex(lines, 'markdown');
    const usage = idx.scopes.find((s) => s.start === 2)!;
    expect(usage).toMatchObject({ kind: 'section', name: 'Usage', end: 3 });
    expect(idx.scopes.find((s) => s.start === 0)!.end).toBe(7);
    expect(idx.scopes.some((s) => s.start === 6)).toBe(false);
    expect(idx.lines[0]!.kind).toBe('header');
  });

  it('matches brackets in json and ignores brackets in strings', () => {
    const lines = ['{', '  "a": "}{",', '  "b": [', '    1', '  ]', '}'];
    const idx = buildFallbackIndex(lines, 'json');
    expect(idx.lines[0]!.closers).toEqual([5]);
    expect(idx.lines[2]!.closers).toEqual([4]);
    expect(idx.lines[3]!.stmtStart).toBe(2);
  });

  it('treats log text as plain lines', () => {
    const lines = ["2024-01-01 ERROR can't connect (retrying", '2024-01-01 INFO ok'];
    const idx = buildFallbackIndex(lines, 'text');
    wellFormed(idx, 2);
    expect(idx.lines.map((l) => l.kind)).toEqual(['code', 'code']);
  });
});
