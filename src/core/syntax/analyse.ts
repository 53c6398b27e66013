/**
 * Analyse stage: the syntax index of each segment (file) of the document, and what repair and
 * render need of its language. Never throws: a segment whose index fails gets the fallback index
 * and a diagnostic.
 */
import { addOnce, type Diagnostic, diagnostic } from '../diagnostics.js';
import type { Document, SyntaxIndex } from '../types.js';
import { analysisKey, cachedAnalysis, rememberAnalysis } from './analysisCache.js';
import { ensureGrammar, loadedParser } from './grammars.js';
import { languageInfo } from './languages.js';
import { buildSyntaxIndex, parseSkipped, TOO_LARGE_TO_PARSE, tooLargeToParse } from './syntaxIndex.js';

/** One segment (file) of the document as repair and render need it. */
export interface SegmentAnalysis {
  syntax: SyntaxIndex;
  /** The segment's code lines (no prefixes). */
  texts: string[];
  info: { lineComment: string | null; placeholder: string | null; braces: boolean };
}

export async function analyse(doc: Document, code: string, diagnostics: Diagnostic[]): Promise<SegmentAnalysis[]> {
  // Too large as a whole: no segment is parsed (each alone might be small enough).
  const huge = tooLargeToParse(code.length, doc.lines.length);
  if (huge) diagnostics.push(parseSkipped(TOO_LARGE_TO_PARSE));
  const analyses: SegmentAnalysis[] = [];
  for (const seg of doc.segments) {
    let texts = seg.lines.map((i) => doc.lines[i].text);
    const lang = huge ? 'text' : seg.language;
    let syntax: SyntaxIndex;
    try {
      if (!huge) await ensureGrammar(lang);
      // the grammar's presence is part of the key: without it the same text gets the fallback index
      const key = analysisKey(texts, `${lang}${loadedParser(lang) ? '' : '/fallback'}`);
      const hit = key === null ? undefined : cachedAnalysis(key);
      const notes: Diagnostic[] = hit ? hit.notes : [];
      if (hit) ({ syntax, texts } = hit);
      else {
        syntax = buildSyntaxIndex(texts, lang, notes);
        // A grammar's language indexed by the fallback without a note may be a parse that ran out
        // of time: not kept, the next call may parse it.
        if (key !== null && (syntax.hasGrammar || notes.length > 0 || !loadedParser(lang))) rememberAnalysis(key, { syntax, texts, notes });
      }
      for (const note of notes) addOnce(diagnostics, hit ? { ...note } : note);
    } catch (err) {
      diagnostics.push(diagnostic('syntax-analysis-failed', `syntax analysis failed for ${seg.path ?? 'input'} (${(err as Error).message}); fallback used`));
      syntax = buildSyntaxIndex(texts, 'text');
    }
    const info = languageInfo(seg.language);
    analyses.push({ syntax, texts, info: { lineComment: info.lineComment, placeholder: info.placeholder, braces: info.blockEnd === 'braces' } });
  }
  return analyses;
}
