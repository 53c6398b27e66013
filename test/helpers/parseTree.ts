/** Parse code with its tree-sitter grammar for the independent tree checks, and free the tree after. */
import type { Tree } from 'web-tree-sitter';
import { splitLines } from '../../src/core/ingest/ingest.js';
import { ensureGrammar, loadedParser } from '../../src/core/syntax/grammars.js';
import { normalizeLanguage } from '../../src/core/syntax/languages.js';
import { parseText } from '../../src/core/syntax/parse.js';

/** `use(tree, lines, language)` on the parsed code; null when the language has no grammar. */
export async function withTree<T>(code: string, language: string, use: (tree: Tree, texts: string[], lang: string) => T): Promise<T | null> {
  const lang = normalizeLanguage(language);
  if (!(await ensureGrammar(lang))) return null;
  const parser = loadedParser(lang);
  if (!parser) return null;
  const texts = splitLines(code).lines.map((l) => l.text);
  const tree = parseText(parser, texts.join('\n'), lang);
  if (!tree) return null;
  try {
    return use(tree, texts, lang);
  } finally {
    tree.delete();
  }
}
