import { describe, expect, it } from 'vitest';
import { joinPieces } from '../../../src/core/layout/layout.js';
import { selectAllButSeen } from '../../../src/core/select/keepAll.js';
import { pythonFunctions, stagesThroughScore } from '../../helpers/stages.js';

describe('selectAllButSeen', () => {
  it('keeps every line but those the session has seen, which fold into their marker', async () => {
    const code = pythonFunctions(40);
    const s = await stagesThroughScore({ code });
    const seen = new Uint8Array(40);
    for (let i = 8; i < 16; i++) seen[i] = 1;
    s.input.doc.seen = seen;
    const sel = selectAllButSeen(s.input.doc, s.repairer('keep-all'), undefined, 0);
    if (sel.kind !== 'selected') throw new Error('whole');
    const text = joinPieces(sel.chosen.pieces);
    expect(text).toContain('# ... 8 lines unchanged since an earlier read (9-16)');
    expect([...sel.chosen.mask].filter((v) => v === 0)).toHaveLength(8);
  });

  it('folds only what was seen, and never inside a docstring: such a fold is shown again, no unseen line goes', async () => {
    const doc = [
      'def parse(text):',
      '    """Parse text.',
      '',
      ...Array.from({ length: 8 }, (_, i) => `    Step ${i}: the text is read.`),
      '    """',
      '    return text.split()',
      '',
    ];
    const code = `${doc.join('\n')}\n${pythonFunctions(12)}`;
    const s = await stagesThroughScore({ code });
    const fold = (from: number, to: number) => {
      const seen = new Uint8Array(doc.length + 12);
      for (let i = from; i <= to; i++) seen[i] = 1;
      s.input.doc.seen = seen;
      const sel = selectAllButSeen(s.input.doc, s.repairer('keep-all'), undefined, 0);
      if (sel.kind !== 'selected') throw new Error('whole');
      return sel.chosen.mask;
    };
    // lines 5-8, inside the docstring: a marker there would sit in the string; a budget would take
    // the docstring out whole (budget.test.ts); a read kept whole shows them again
    expect([...fold(4, 7)].every((v) => v === 1)).toBe(true);
    // the whole docstring seen (lines 2-12): it folds, its marker outside the string
    const mask = fold(1, 11);
    mask.forEach((v, i) => expect([i, v]).toEqual([i, i >= 1 && i <= 11 ? 0 : 1]));
  });

  it('a one-line body shown again for its placeholder leaves no marker for the blank line after it', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 10; i++) lines.push(`def f${i}(x):`, `    return x * ${i} + ${i} * ${i} - ${i}`, '');
    const code = `${lines.join('\n')}\n`;
    const s = await stagesThroughScore({ code });
    // f1's body and the blank after it were seen: the body comes back (a placeholder would cost
    // more), and the blank line left alone between kept lines comes back too, not a marker for it
    const seen = new Uint8Array(lines.length + 1);
    seen[4] = seen[5] = 1;
    s.input.doc.seen = seen;
    const sel = selectAllButSeen(s.input.doc, s.repairer('keep-all'), undefined, 0);
    expect(sel.kind === 'selected' && joinPieces(sel.chosen.pieces)).toBe(code);
  });

  it('without seen lines, the output is the input', async () => {
    const code = pythonFunctions(12);
    const s = await stagesThroughScore({ code });
    const sel = selectAllButSeen(s.input.doc, s.repairer('keep-all'), undefined, 0);
    expect(sel.kind === 'selected' && joinPieces(sel.chosen.pieces)).toBe(code);
  });
});
