/**
 * What /v1/info reports about the pruning engine: the languages that have a tree-sitter grammar
 * (any other language still prunes, with the indentation/bracket fallback).
 */
import { GRAMMAR_LANGUAGES } from '../core/syntax/index.js';

export function grammarLanguages(): string[] {
  return [...GRAMMAR_LANGUAGES].sort();
}
