/**
 * buildSyntaxIndex: the SyntaxIndex of one segment's lines. Uses the tree-sitter grammar when
 * `ensureGrammar(language)` was awaited before; otherwise (or on any failure) the fallback index.
 * Synchronous and total: never throws.
 */
import { type Diagnostic, diagnostic } from '../diagnostics.js';
import { MAX_PARSE_CHARS, MAX_PARSE_DEPTH, MAX_PARSE_LINE, MAX_PARSE_LINES } from '../limits.js';
import type { SyntaxIndex } from '../types.js';
import { buildFallbackIndex, trivialIndex } from './fallbackIndex.js';
import { loadedParser } from './grammars.js';
import { grammarSpec } from './lang/index.js';
import { normalizeLanguage } from './languages.js';
import { parseText } from './parse.js';
import { indexTree } from './walker.js';

/** Over MAX_PARSE_CHARS or MAX_PARSE_LINES: too large for the tree-sitter pass. */
export function tooLargeToParse(chars: number, lines: number): boolean {
  return chars > MAX_PARSE_CHARS || lines > MAX_PARSE_LINES;
}

/** The diagnostic of a text indexed by the fallback because of `why` (its size, its depth). */
export function parseSkipped(why: string): Diagnostic {
  return diagnostic('parse-skipped', `${why}: indentation/bracket fallback used`);
}

export const TOO_LARGE_TO_PARSE = 'input too large for a full parse';

/**
 * Why these lines are not worth a tree-sitter parse (the fallback index takes them), or null:
 * too large, a minified line (silent: the usual case for a bundle), or nesting too deep
 * (tree-sitter's and the walker's work per line grows with the depth).
 */
export function parseRefusal(lines: readonly string[]): { why: string; silent?: boolean } | null {
  let size = 0;
  let longest = 0;
  for (const l of lines) {
    size += l.length + 1;
    if (l.length > longest) longest = l.length;
  }
  if (tooLargeToParse(size, lines.length)) return { why: TOO_LARGE_TO_PARSE };
  if (longest > MAX_PARSE_LINE) return { why: 'a line too long for a full parse', silent: true };
  if (nestingDepth(lines) > MAX_PARSE_DEPTH) return { why: `nesting deeper than ${MAX_PARSE_DEPTH} levels` };
  return null;
}

/**
 * Deepest nesting of the text, roughly: brackets (strings not skipped) or indentation levels,
 * whichever is deeper. One pass; stops counting once past MAX_PARSE_DEPTH.
 */
export function nestingDepth(lines: readonly string[]): number {
  let depth = 0;
  let deepest = 0;
  const indents: number[] = [0];
  for (const l of lines) {
    let w = 0;
    while (w < l.length && (l.charCodeAt(w) === 32 || l.charCodeAt(w) === 9)) w++;
    if (w < l.length) {
      while (indents[indents.length - 1]! > w) indents.pop();
      if (w > indents[indents.length - 1]!) indents.push(w);
      if (indents.length - 1 > deepest) deepest = indents.length - 1;
    }
    for (let i = w; i < l.length; i++) {
      const c = l.charCodeAt(i);
      if (c === 40 || c === 91 || c === 123) {
        if (++depth > deepest) deepest = depth;
      } else if ((c === 41 || c === 93 || c === 125) && depth > 0) depth--;
    }
    if (deepest > MAX_PARSE_DEPTH) return deepest;
  }
  return deepest;
}

/** `notes` receives why a grammar language was not parsed (a too large or too deep input). */
export function buildSyntaxIndex(lines: string[], language: string, notes?: Diagnostic[]): SyntaxIndex {
  const lang = normalizeLanguage(language);
  try {
    if (!Array.isArray(lines)) return buildFallbackIndex([], lang);
    const spec = grammarSpec(lang);
    const parser = loadedParser(lang);
    if (spec && parser && lines.length > 0) {
      const refusal = parseRefusal(lines);
      if (refusal === null) {
        const tree = parseText(parser, lines.join('\n'), lang);
        if (tree) {
          try {
            return indexTree(tree, lines, spec, lang);
          } finally {
            tree.delete();
          }
        }
      } else if (!refusal.silent) notes?.push(parseSkipped(refusal.why));
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
