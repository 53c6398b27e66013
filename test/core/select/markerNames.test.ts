/**
 * Names in a budget's markers (src/core/select/markerNames.ts), on a real file: the selection made
 * with plain markers is kept line for line, markers get their names most definitions per token
 * first, and only while the output fits its budget, counted as the budget counts it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinPieces, MARKER_RE, namedMarkerText } from '../../../src/core/layout/layout.js';
import { CHARS, type Measure, TOKENS } from '../../../src/core/layout/measure.js';
import type { Materialized } from '../../../src/core/pipeline/types.js';
import { createMaterialize } from '../../../src/core/repair/materialize.js';
import { nameMarkersWithinBudget } from '../../../src/core/select/markerNames.js';
import { ensureGrammar } from '../../../src/core/syntax/index.js';
import { countTokens } from '../../../src/core/tokens/count.js';
import { stagesThroughScore } from '../../helpers/stages.js';

const FLASK = readFileSync(path.resolve(__dirname, '../../fixtures/markers/flask_config.py'), 'utf8');

/** The output of a budget-mode selection (markers that name nothing) keeping the lines matching `re` and what they need. */
async function plainOutput(measure: Measure, re: RegExp) {
  await ensureGrammar('python');
  const s = await stagesThroughScore({ code: FLASK, language: 'python', ...(measure === CHARS ? { maxChars: 100_000 } : { tokens: 100_000 }) });
  const doc = s.input.doc;
  const seeds = Uint8Array.from(doc.lines, (l) => (re.test(l.text) ? 1 : 0));
  const plain = createMaterialize(doc, s.analyses, { repair: true, economy: true, budget: true, measure })(seeds);
  const named = plain.pieces.map((p) => namedMarkerText(doc, p));
  return { doc, plain, named, length: measure.exact(joinPieces(plain.pieces)) };
}

/** The output with what follows each marker's range (names or a count) cut off. */
const withoutNames = (m: Materialized) => joinPieces(m.pieces).replace(/(\(\d+-\d+\)): .*$/gm, '$1');
/** Definitions a named marker tells of: each name, and those counted ("and 3 more"). */
const told = (t: string) => t.replace(/^.*?\(\d+-\d+\): /, '').split(/, |; /).length + Number(/ and (\d+) more$/.exec(t)?.[1] ?? 0);
/** Markers that name what they hide (not those that only count it: "(a-b): 3 definitions"). */
const namedCount = (m: Materialized) => m.pieces.filter((p) => p.run && /\(\d+-\d+\): (?!\d+ definitions?$)/.test(p.line)).length;

describe('nameMarkersWithinBudget', () => {
  const re = /def from_pyfile|def from_object|class ConfigAttribute/;

  it('names every marker that hides a definition when the budget has room, and changes nothing else', async () => {
    const { doc, plain, named, length } = await plainOutput(CHARS, re);
    const nameable = named.filter((t) => t !== null).length;
    expect(nameable).toBeGreaterThan(2);
    expect(namedCount(plain)).toBe(0);
    // the selection's markers count what they hide
    expect(joinPieces(plain.pieces)).toContain('    # ... 113 lines omitted (255-367): 4 definitions\n');
    const out = nameMarkersWithinBudget(doc, plain, { limit: length + 10_000, measure: CHARS });
    expect(namedCount(out)).toBe(nameable);
    expect(out.mask).toBe(plain.mask);
    expect(withoutNames(out)).toBe(withoutNames(plain));
    expect(joinPieces(out.pieces)).toContain('    # ... 113 lines omitted (255-367): from_file, from_mapping, get_namespace, __repr__');
    for (const p of out.pieces) if (p.run) expect(p.line).toMatch(MARKER_RE);
  });

  it('with no room left, the output is the selection as it was', async () => {
    const { doc, plain, named, length } = await plainOutput(CHARS, re);
    const cheapest = Math.min(...named.map((t, i) => (t === null ? Infinity : t.length - plain.pieces[i].line.length)));
    expect(nameMarkersWithinBudget(doc, plain, { limit: length, measure: CHARS })).toBe(plain);
    expect(nameMarkersWithinBudget(doc, plain, { limit: length + cheapest - 1, measure: CHARS })).toBe(plain);
    expect(namedCount(nameMarkersWithinBudget(doc, plain, { limit: length + cheapest, measure: CHARS }))).toBe(1);
  });

  it('the names that fit go to the markers that tell of the most definitions per character', async () => {
    const { doc, plain, named, length } = await plainOutput(CHARS, re);
    const gains = named
      .map((t, i) => (t === null ? null : { i, extra: t.length - plain.pieces[i].line.length, t }))
      .filter((g) => g !== null)
      .sort((a, b) => told(b.t) / b.extra - told(a.t) / a.extra);
    // room for the best one only: it is the one named
    const out = nameMarkersWithinBudget(doc, plain, { limit: length + gains[0].extra, measure: CHARS });
    expect(out.pieces[gains[0].i].line).toBe(gains[0].t);
  });

  it('never goes over a budget, in characters or in tokens, as the room grows', async () => {
    for (const measure of [CHARS, TOKENS]) {
      const { doc, plain, length } = await plainOutput(measure, re);
      let most = 0;
      for (let room = 0; room <= (measure === CHARS ? 600 : 150); room += measure === CHARS ? 20 : 5) {
        const out = nameMarkersWithinBudget(doc, plain, { limit: length + room, measure });
        const text = joinPieces(out.pieces);
        expect(measure === CHARS ? text.length : countTokens(text)).toBeLessThanOrEqual(length + room);
        expect(withoutNames(out)).toBe(withoutNames(plain));
        most = Math.max(most, namedCount(out));
      }
      expect(most).toBeGreaterThan(1);
    }
  });
});
