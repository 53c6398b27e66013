import { describe, expect, it } from 'vitest';
import { joinPieces } from '../../../src/core/layout/layout.js';
import { TOKENS } from '../../../src/core/layout/measure.js';
import { FIX_PARSE_FACTOR, FIX_PARSE_FLOOR } from '../../../src/core/limits.js';
import { enclosingItem, fixSyntax, fixWorkFor } from '../../../src/core/repair/fixSyntax.js';
import { createMaterialize } from '../../../src/core/repair/materialize.js';
import { checkSyntaxSync } from '../../../src/core/syntax/index.js';
import { stagesThroughScore } from '../../helpers/stages.js';

// The closing quotes of a multi-line string kept without its opener: the output does not parse.
const body = Array.from({ length: 20 }, (_, i) => `    line ${i} of the text in the string`);
const code = ['def f():', '    s = """', ...body, '    """', '    return s', '', 'def g():', '    return 2', ''].join('\n');

async function broken() {
  const s = await stagesThroughScore({ code, language: 'python' });
  const materialize = createMaterialize(s.input.doc, s.analyses, { repair: false, economy: true, budget: true, measure: TOKENS });
  const seeds = new Uint8Array(s.input.doc.lines.length);
  seeds[0] = seeds[22] = seeds[25] = seeds[26] = 1;
  return { ...s, materialize, seeds, start: materialize(seeds) };
}

describe('fixSyntax', () => {
  it('makes an output that does not parse parse, without problems', async () => {
    const { input, analyses, materialize, seeds, start } = await broken();
    expect(checkSyntaxSync(joinPieces(start.pieces), 'python').ok).toBe(false);
    const { output, problems } = fixSyntax(input.doc, analyses, start, seeds, materialize, null, fixWorkFor(code.length));
    expect(problems).toEqual([]);
    expect(checkSyntaxSync(joinPieces(output.pieces), 'python').ok).toBe(true);
  });

  it('an output that parses is returned as it is', async () => {
    const { input, analyses, materialize } = await broken();
    const seeds = new Uint8Array(input.doc.lines.length);
    seeds[25] = seeds[26] = 1;
    const start = materialize(seeds);
    expect(fixSyntax(input.doc, analyses, start, seeds, materialize, null, fixWorkFor(code.length)).output).toBe(start);
  });

  it('stops with a diagnostic when the parsing work runs out', async () => {
    const { input, analyses, materialize, seeds, start } = await broken();
    const { output, problems } = fixSyntax(input.doc, analyses, start, seeds, materialize, null, { left: 0 });
    expect(output).toBe(start);
    expect(problems).toEqual([{ code: 'repair-stopped', message: 'syntax repair of the output stopped early (a large input): the output may not parse' }]);
  });

  it('the work is a multiple of the input, with a floor', () => {
    expect(fixWorkFor(10).left).toBe(FIX_PARSE_FLOOR);
    expect(fixWorkFor(10 * FIX_PARSE_FLOOR).left).toBe(10 * FIX_PARSE_FLOOR * FIX_PARSE_FACTOR);
  });
});

describe('enclosingItem', () => {
  it('the innermost scope not tried yet, then the next one out, then the statement', async () => {
    const { analyses } = await broken();
    const tried = new Set<number>();
    expect(enclosingItem(analyses[0].syntax, 23, tried)).toEqual([0, 23]);
    expect(enclosingItem(analyses[0].syntax, 23, tried)).toEqual([23, 23]);
  });
});
