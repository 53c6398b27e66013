/** Public surface of the syntax layer. */
export { ensureGrammar, ensureAllGrammars, grammarAvailable, grammarLoadError } from './grammars.js';
export { buildSyntaxIndex } from './syntaxIndex.js';
export { buildFallbackIndex } from './fallbackIndex.js';
export { checkSyntax, checkSyntaxSync, type SyntaxCheck } from './checkSyntax.js';
export {
  detectLanguage,
  normalizeLanguage,
  languageInfo,
  GRAMMAR_LANGUAGES,
  LANGUAGES,
  isKnownLanguage,
  type LanguageInfo,
  type BlockStyle,
} from './languages.js';
export { closerLine, closerTest, detectIndentUnit } from './lineText.js';
