/**
 * Analyse stage: the syntax index of each segment (file) of the document, and what repair and
 * render need of its language. Never throws: a segment whose index fails gets the fallback index
 * and a diagnostic.
 */
import { addOnce, type Diagnostic, diagnostic } from '../diagnostics.js';
import type { SegmentAnalysis } from '../pipeline/types.js';
import type { Document, SyntaxIndex } from '../types.js';
import { ensureGrammar } from './grammars.js';
import { languageInfo } from './languages.js';
import { buildSyntaxIndex, parseSkipped, TOO_LARGE_TO_PARSE, tooLargeToParse } from './syntaxIndex.js';

export async function analyse(doc: Document, code: string, diagnostics: Diagnostic[]): Promise<SegmentAnalysis[]> {
  // Too large as a whole: no segment is parsed (each alone might be small enough).
  const huge = tooLargeToParse(code.length, doc.lines.length);
  if (huge) diagnostics.push(parseSkipped(TOO_LARGE_TO_PARSE));
  const analyses: SegmentAnalysis[] = [];
  for (const seg of doc.segments) {
    const texts = seg.lines.map((i) => doc.lines[i].text);
    const lang = huge ? 'text' : seg.language;
    let syntax: SyntaxIndex;
    try {
      if (!huge) await ensureGrammar(lang);
      const notes: Diagnostic[] = [];
      syntax = buildSyntaxIndex(texts, lang, notes);
      for (const note of notes) addOnce(diagnostics, note);
    } catch (err) {
      diagnostics.push(diagnostic('syntax-analysis-failed', `syntax analysis failed for ${seg.path ?? 'input'} (${(err as Error).message}); fallback used`));
      syntax = buildSyntaxIndex(texts, 'text');
    }
    const info = languageInfo(seg.language);
    analyses.push({ syntax, texts, info: { lineComment: info.lineComment, placeholder: info.placeholder, braces: info.blockEnd === 'braces' } });
  }
  return analyses;
}
