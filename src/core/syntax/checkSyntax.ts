/**
 * Syntax validity of a text: does the grammar parse it without ERROR or MISSING nodes?
 * Used to check that pruned output of a file that parses still parses.
 */
import { type Language, Query, type Tree } from 'web-tree-sitter';
import { ensureGrammar, loadedParser } from './grammars.js';
import { normalizeLanguage } from './languages.js';
import { parseText } from './parse.js';

export interface SyntaxCheck {
  /** True when the text parses cleanly (always true when there is no grammar to judge it). */
  ok: boolean;
  /** Whether a grammar judged the text. */
  hasGrammar: boolean;
}

const missingQueries = new WeakMap<Language, Query | null>();

/** `hasError` already counts MISSING nodes in this tree-sitter; the query is a cheap native second opinion. */
function hasMissing(tree: Tree): boolean {
  const lang = tree.language;
  let q = missingQueries.get(lang);
  if (q === undefined) {
    try {
      q = new Query(lang, '(MISSING) @missing');
    } catch {
      q = null;
    }
    missingQueries.set(lang, q);
  }
  if (!q) return false;
  return q.captures(tree.rootNode, { matchLimit: 1 }).length > 0;
}

/** Synchronous check; needs `ensureGrammar(language)` to have resolved true, else reports hasGrammar false. */
export function checkSyntaxSync(text: string, language: string): SyntaxCheck {
  const lang = normalizeLanguage(language);
  const parser = loadedParser(lang);
  if (!parser) return { ok: true, hasGrammar: false };
  const tree = parseText(parser, String(text ?? ''), lang);
  if (!tree) return { ok: false, hasGrammar: true };
  try {
    return { ok: !tree.rootNode.hasError && !hasMissing(tree), hasGrammar: true };
  } finally {
    tree.delete();
  }
}

export async function checkSyntax(text: string, language: string): Promise<SyntaxCheck> {
  await ensureGrammar(language);
  return checkSyntaxSync(text, language);
}
