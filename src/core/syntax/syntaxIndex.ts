/**
 * buildSyntaxIndex: the SyntaxIndex of one segment's lines. Uses the tree-sitter grammar when
 * `ensureGrammar(language)` was awaited before; otherwise (or on any failure) the fallback index.
 * Synchronous and total: never throws.
 */
import type { SyntaxIndex } from '../types.js';
import { loadedParser } from './grammars.js';
import { normalizeLanguage } from './languages.js';
import { grammarSpec } from './lang/index.js';
import { indexTree } from './walker.js';
import { buildFallbackIndex, trivialIndex } from './fallbackIndex.js';
import { parseText } from './parse.js';

/** Inputs larger than this are not parsed (tree-sitter time and memory grow with size). */
export const MAX_PARSE_CHARS = 4_000_000;
/** A line longer than this is minified/generated code: parsing it costs seconds and yields no useful structure. */
export const MAX_PARSE_LINE = 200_000;

export function buildSyntaxIndex(lines: string[], language: string): SyntaxIndex {
  const lang = normalizeLanguage(language);
  try {
    if (!Array.isArray(lines)) return buildFallbackIndex([], lang);
    const spec = grammarSpec(lang);
    const parser = loadedParser(lang);
    if (spec && parser && lines.length > 0) {
      let size = 0;
      let longest = 0;
      for (const l of lines) {
        size += l.length + 1;
        if (l.length > longest) longest = l.length;
      }
      if (size <= MAX_PARSE_CHARS && longest <= MAX_PARSE_LINE) {
        const tree = parseText(parser, lines.join('\n'), lang);
        if (tree) {
          try {
            return indexTree(tree, lines, spec, lang);
          } finally {
            tree.delete();
          }
        }
      }
    }
    return buildFallbackIndex(lines, lang);
  } catch {
    try {
      return buildFallbackIndex(lines, lang);
    } catch {
      return trivialIndex(Array.isArray(lines) ? lines : [], lang);
    }
  }
}
