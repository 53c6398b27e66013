/** Public surface of the syntax layer. */

export { checkSyntax, checkSyntaxSync, type SyntaxCheck } from './checkSyntax.js';
export { buildFallbackIndex } from './fallbackIndex.js';
export { ensureAllGrammars, ensureGrammar, grammarAvailable, grammarLoadError } from './grammars.js';
export {
  type BlockStyle,
  detectLanguage,
  GRAMMAR_LANGUAGES,
  isKnownLanguage,
  LANGUAGES,
  type LanguageInfo,
  languageInfo,
  normalizeLanguage,
} from './languages.js';
export { closerLine, closerTest, detectIndentUnit } from './lineText.js';
export { buildSyntaxIndex } from './syntaxIndex.js';
