import { describe, expect, it } from 'vitest';
import { joinPieces } from '../../../src/core/layout/layout.js';
import { CHARS, TOKENS } from '../../../src/core/layout/measure.js';
import { rankLines, selectWithinBudget } from '../../../src/core/select/budget.js';
import { checkSyntaxSync, ensureGrammar } from '../../../src/core/syntax/index.js';
import { countTokens } from '../../../src/core/tokens/count.js';
import type { Diagnostic } from '../../../src/core/types.js';
import { frozenScorer, pythonFunctions, stagesThroughScore } from '../../helpers/stages.js';

const code = pythonFunctions(240);
const scores = Array.from({ length: 240 }, (_, i) => (i >= 40 && i < 48 ? 0.9 : i === 100 ? 0.95 : 0.01));

describe('rankLines', () => {
  it('ranks a relevant block ahead of a lone higher line, and leaves out layout and seen lines', async () => {
    const s = await stagesThroughScore({ code, ratio: 4 }, frozenScorer(scores));
    s.input.doc.seen = new Uint8Array(240);
    s.input.doc.seen[41] = 1;
    const order = rankLines(s.input.doc, s.scored, s.analyses, { limit: 100, measure: TOKENS }).byValue;
    expect(order.slice(0, 7).sort((a, b) => a - b)).toEqual([40, 42, 43, 44, 45, 46, 47]);
    expect(order).not.toContain(41);
  });
});

describe('selectWithinBudget', () => {
  it('keeps the most of the ranking that fits, counted exactly on the output, which parses', async () => {
    await ensureGrammar('python');
    for (const ratio of [3, 8]) {
      const s = await stagesThroughScore({ code, ratio, language: 'python' }, frozenScorer(scores));
      const limit = Math.floor(s.input.tokensIn / ratio);
      const diagnostics: Diagnostic[] = [];
      const sel = selectWithinBudget(s.input.doc, s.analyses, s.scored, { limit, measure: TOKENS }, s.repairer('budget'), diagnostics);
      const text = joinPieces(sel.chosen.pieces);
      expect(countTokens(text)).toBeLessThanOrEqual(limit);
      expect(sel.chosen.mask[44]).toBe(1);
      expect(checkSyntaxSync(text, 'python').ok).toBe(true);
      expect(diagnostics).toEqual([]);
    }
  });

  it('counts characters for maxChars', async () => {
    const s = await stagesThroughScore({ code, maxChars: 400 }, frozenScorer(scores));
    const sel = selectWithinBudget(s.input.doc, s.analyses, s.scored, { limit: 400, measure: CHARS }, s.repairer('budget'), []);
    expect(joinPieces(sel.chosen.pieces).length).toBeLessThanOrEqual(400);
  });

  it('a budget that not even a marker fits: the input collapses to its marker, with a diagnostic', async () => {
    const s = await stagesThroughScore({ code, tokens: 3 }, frozenScorer(scores));
    const diagnostics: Diagnostic[] = [];
    const sel = selectWithinBudget(s.input.doc, s.analyses, s.scored, { limit: 3, measure: TOKENS }, s.repairer('budget'), diagnostics);
    expect(joinPieces(sel.chosen.pieces)).toBe('# ... 240 lines omitted (1-240)\n');
    expect(diagnostics.map((d) => d.code)).toEqual(['budget-too-small']);
    expect(diagnostics[0].message).toMatch(/^budget of 3 tokens is too small even for a marker/);
  });
});
