import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildSyntaxIndex } from '../../src/core/syntax/index.js';
import { loadSyntaxSource } from '../../src/train/syntaxSource.js';

const code = ['def f(x):', '    if x:', '        return 1', '    return 2'];

describe('loadSyntaxSource', () => {
  afterEach(() => {
    vi.doUnmock('../../src/core/syntax/index.js');
    vi.resetModules();
  });

  it('builds the index prune() builds (language aliases normalized)', async () => {
    const source = await loadSyntaxSource();
    await source.prepare('py');
    expect(source.name).toBe('tree-sitter');
    expect(source.build(code, 'py')).toEqual(buildSyntaxIndex(code, 'python'));
  });

  it('stops with the reason when a grammar does not load, instead of training on another index', async () => {
    vi.resetModules();
    vi.doMock('../../src/core/syntax/index.js', async (original) => ({
      ...(await original<typeof import('../../src/core/syntax/index.js')>()),
      ensureGrammar: async () => false,
      grammarLoadError: () => 'wasm magic number mismatch',
    }));
    const { loadSyntaxSource: load } = await import('../../src/train/syntaxSource.js');
    const source = await load();
    await expect(source.prepare('python')).rejects.toThrow(/python grammar did not load \(wasm magic number mismatch\)/);
  });
});
