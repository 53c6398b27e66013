import { describe, expect, it } from 'vitest';
import { joinPieces } from '../../../src/core/layout/layout.js';
import { CHARS, TOKENS } from '../../../src/core/layout/measure.js';
import { collapseAll } from '../../../src/core/select/collapseAll.js';
import type { Diagnostic } from '../../../src/core/types.js';
import { pythonFunctions, stagesThroughScore } from '../../helpers/stages.js';

const multi = `==> a.py <==\n${pythonFunctions(30)}\n==> b.py <==\n${pythonFunctions(30)}`;

describe('collapseAll', () => {
  it('every file to its marker when those fit, layout lines kept', async () => {
    const s = await stagesThroughScore({ code: multi, tokens: 40 });
    const diagnostics: Diagnostic[] = [];
    const m = collapseAll(s.input.doc, s.analyses, { limit: 40, measure: TOKENS }, diagnostics);
    expect(joinPieces(m.pieces)).toBe('==> a.py <==\n# ... 30 lines omitted (1-30)\n\n==> b.py <==\n# ... 30 lines omitted (1-30)\n');
    expect(m.wholeMarker).toBeUndefined();
    expect(diagnostics).toEqual([{ code: 'budget-too-small', message: 'budget too small for any line: every file collapsed to its marker' }]);
  });

  it('else one marker for the whole input, over the budget when even that does not fit', async () => {
    const s = await stagesThroughScore({ code: multi, maxChars: 5 });
    const diagnostics: Diagnostic[] = [];
    const m = collapseAll(s.input.doc, s.analyses, { limit: 5, measure: CHARS }, diagnostics);
    expect(joinPieces(m.pieces)).toBe('... 63 lines omitted (1-63)\n');
    expect(m.wholeMarker).toBe(true);
    expect(diagnostics[0].message).toBe('budget of 5 characters is too small even for a marker: the output is one marker (28 characters), over the budget');
  });
});
