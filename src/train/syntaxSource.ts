/**
 * Where the trainer and evaluator get SyntaxIndexes: the index prune() builds at inference
 * (src/core/syntax), so a model is trained on the features it will see. A grammar that fails to
 * load stops the run with its reason instead of training on another index.
 */
import { buildSyntaxIndex, ensureGrammar, grammarLoadError, normalizeLanguage } from '../core/syntax/index.js';
import type { SyntaxIndex } from '../core/types.js';

export interface SyntaxSource {
  /** Recorded with a model and its evaluation. */
  name: 'tree-sitter';
  build(lines: string[], language: string): SyntaxIndex;
  /** Load the language's grammar (once); throws when it has one that does not load. */
  prepare(language: string): Promise<void>;
}

export async function loadSyntaxSource(): Promise<SyntaxSource> {
  const ready = new Set<string>();
  return {
    name: 'tree-sitter',
    build: (lines, language) => buildSyntaxIndex(lines, normalizeLanguage(language)),
    prepare: async (language) => {
      const lang = normalizeLanguage(language);
      if (ready.has(lang)) return;
      if (!(await ensureGrammar(lang))) {
        const why = grammarLoadError(lang);
        if (why) throw new Error(`the ${lang} grammar did not load (${why}): training needs the index prune() uses`);
      }
      ready.add(lang);
    },
  };
}
