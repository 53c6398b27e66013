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
    const sel = selectAllButSeen(s.input.doc, s.repairer(true), undefined, 0);
    if (sel.kind !== 'selected') throw new Error('whole');
    const text = joinPieces(sel.chosen.pieces);
    expect(text).toContain('# ... 8 lines unchanged since an earlier read (9-16)');
    expect([...sel.chosen.mask].filter((v) => v === 0)).toHaveLength(8);
  });

  it('without seen lines, the output is the input', async () => {
    const code = pythonFunctions(12);
    const s = await stagesThroughScore({ code });
    const sel = selectAllButSeen(s.input.doc, s.repairer(true), undefined, 0);
    expect(sel.kind === 'selected' && joinPieces(sel.chosen.pieces)).toBe(code);
  });
});
