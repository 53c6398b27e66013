import { describe, expect, it } from 'vitest';
import { ingest } from '../../../src/core/ingest/ingest.js';
import { MAX_PARSE_LINES } from '../../../src/core/limits.js';
import { analyse } from '../../../src/core/syntax/analyse.js';
import type { Diagnostic } from '../../../src/core/types.js';

const detect = (p: string | undefined) => (p?.endsWith('.py') ? 'python' : p?.endsWith('.ts') ? 'typescript' : 'text');

describe('analyse', () => {
  it('indexes each file of the input with its grammar, and knows its comment and block style', async () => {
    const code = '==> a.py <==\ndef f():\n    return 1\n\n==> b.ts <==\nfunction g() {\n  return 2;\n}\n';
    const doc = ingest(code, { detectLanguage: detect });
    const diagnostics: Diagnostic[] = [];
    const analyses = await analyse(doc, code, diagnostics);
    expect(analyses.map((a) => [a.syntax.language, a.syntax.hasGrammar, a.info.lineComment, a.info.braces])).toEqual([
      ['python', true, '#', false],
      ['typescript', true, '//', true],
    ]);
    expect(analyses[0].texts).toEqual(['def f():', '    return 1']);
    expect(analyses[0].syntax.lines[0].kind).toBe('header');
    expect(diagnostics).toEqual([]);
  });

  it('an input too large to parse as a whole is indexed by the fallback, said once', async () => {
    const code = 'x = 1\n'.repeat(MAX_PARSE_LINES + 1);
    const doc = ingest(code, { language: 'python', detectLanguage: detect });
    const diagnostics: Diagnostic[] = [];
    const [a] = await analyse(doc, code, diagnostics);
    expect(a.syntax.hasGrammar).toBe(false);
    expect(diagnostics).toEqual([{ code: 'parse-skipped', message: 'input too large for a full parse: indentation/bracket fallback used' }]);
  });
});
