import { describe, expect, it } from 'vitest';
import { addOnce, type Diagnostic, diagnostic, hasCode, messagesOf } from '../../src/core/diagnostics.js';

describe('diagnostics', () => {
  it('carry a code to branch on and the human message a warning shows', () => {
    const d = diagnostic('binary-input', 'binary input returned unchanged');
    expect(d).toEqual({ code: 'binary-input', message: 'binary input returned unchanged' });
    expect(messagesOf([d, diagnostic('no-query', 'no query: returned unchanged')])).toEqual([
      'binary input returned unchanged',
      'no query: returned unchanged',
    ]);
  });

  it('hasCode looks at codes only, never at the text', () => {
    const list = [diagnostic('scorer-failed', 'scorer x failed (budget too small); heuristic used')];
    expect(hasCode(list, 'budget-too-small')).toBe(false);
    expect(hasCode(list, 'scorer-failed')).toBe(true);
  });

  it('addOnce skips a repeat of the same code and message, not another message of the code', () => {
    const list: Diagnostic[] = [];
    addOnce(list, diagnostic('parse-skipped', 'a: fallback'));
    addOnce(list, diagnostic('parse-skipped', 'a: fallback'));
    addOnce(list, diagnostic('parse-skipped', 'b: fallback'));
    expect(messagesOf(list)).toEqual(['a: fallback', 'b: fallback']);
  });
});
