/**
 * Where the trainer and evaluator get SyntaxIndexes: the tree-sitter index of src/core/syntax when
 * it is present (the same one prune() uses at inference), else the simple regex index.
 */
import type { SyntaxIndex } from '../core/types.js';
import { buildSimpleSyntaxIndex } from './simpleSyntax.js';

type Build = (lines: string[], language: string) => SyntaxIndex;
type Ensure = (language: string) => Promise<boolean>;

export interface SyntaxSource {
  name: 'tree-sitter' | 'simple';
  build(lines: string[], language: string): SyntaxIndex;
  prepare(language: string): Promise<void>;
}

export async function loadSyntaxSource(force?: 'simple'): Promise<SyntaxSource> {
  if (force !== 'simple') {
    try {
      const mod = (await import('../core/syntax/index.js')) as { buildSyntaxIndex?: Build; ensureGrammar?: Ensure; normalizeLanguage?: (s: string) => string };
      if (mod.buildSyntaxIndex && mod.ensureGrammar) {
        const build = mod.buildSyntaxIndex;
        const ensure = mod.ensureGrammar;
        const norm = mod.normalizeLanguage ?? ((s: string) => s);
        const ready = new Set<string>();
        return {
          name: 'tree-sitter',
          build: (lines, language) => {
            try {
              return build(lines, norm(language));
            } catch {
              return buildSimpleSyntaxIndex(lines, language);
            }
          },
          prepare: async (language) => {
            const l = norm(language);
            if (ready.has(l)) return;
            ready.add(l);
            await ensure(l).catch(() => false);
          },
        };
      }
    } catch {
      // syntax module not there yet: fall through
    }
  }
  return { name: 'simple', build: buildSimpleSyntaxIndex, prepare: async () => {} };
}
