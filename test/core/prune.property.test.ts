/**
 * Property tests over real files in 12 languages (the shipped slice of polyglot-dev, or all 310
 * files with `npm run test:shared`; see test/helpers/cases.ts) with their commit messages as queries, at ratio 4, ratio 8 and threshold mode:
 * (a) non-marker output lines are input lines, in order; (b) kept ∪ omitted partition the input;
 * (c) outputs of files that parse cleanly parse cleanly (>= 99% per grammar language);
 * (d) same input, same output; (e) budgets are never exceeded (but by the lone marker of a budget
 * smaller than one marker); (f) at ratio 4 a file of 2,000+
 * tokens keeps some of its lines (syntax repair must not collapse it to one marker).
 * (h) at ratio 4 and in threshold mode no kept line is shown under the wrong clause: the header of
 * every else/elif/except/finally/catch/case/default/match arm/rescue around it is kept too (checked
 * against the tree-sitter tree directly, test/helpers/clauses.ts).
 * (i) in every mode, a kept attribute/decorator/annotation/doc comment line comes with the first
 * line of its item (test/helpers/attachments.ts).
 * (j) in threshold mode, markers show what they hide (test/helpers/markers.ts): none stands for one
 * non-blank line or blank lines alone, each names or counts the definitions wholly inside its run,
 * none lies inside a comment or string or deeper than the shallowest definition it hides.
 * (k) at ratio 4 and 8, the same as (j): every marker names or counts the definitions wholly
 * inside its run ("12 definitions"), names them right where the budget left room for names (over
 * 40% of those that hide a definition do), is no deeper than what it hides, stands for more than
 * one non-blank line and lies inside no comment or string.
 * Plus fast-check over random budgets (tokens and characters): budgets respected, kept sets nest as
 * the budget grows, (h) holds, no marker inside a comment or string.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { MARKER_RE } from '../../src/core/layout/layout.js';
import { createPruner } from '../../src/core/prune.js';
import { checkSyntax } from '../../src/core/syntax/index.js';
import { countLineTokens } from '../../src/core/tokens/count.js';
import type { PruneResult } from '../../src/core/types.js';
import { attachmentItems, attachmentViolations } from '../helpers/attachments.js';
import { FULL_CORPUS, polyglotCases } from '../helpers/cases.js';
import { clauseHeaderChains, clauseViolations } from '../helpers/clauses.js';
import { checkInvariants } from '../helpers/invariants.js';
import { definitions, type MarkerCounts, markerViolations, textSpans } from '../helpers/markers.js';

const cases = polyglotCases();
/** Counts the checks must reach: the full corpus is about seven times the shipped slice. */
const AT_LEAST = FULL_CORPUS
  ? { files: 310, markers: 1000, clauses: 500, attachments: 10_000, hidden: 2_000 }
  : { files: 46, markers: 1000, clauses: 70, attachments: 2_500, hidden: 200 };
const pruner = createPruner();
const MODES: { name: string; ratio?: number }[] = [{ name: 'ratio4', ratio: 4 }, { name: 'ratio8', ratio: 8 }, { name: 'threshold' }];

interface Row {
  lang: string;
  mode: string;
  inputOk: boolean;
  outputOk: boolean;
}
const rows: Row[] = [];
const failures: string[] = [];
/** (h) kept lines shown without the header of a clause around them. */
const clauseFailures: string[] = [];
let clauseChecked = 0;
/** (i) attributes, decorators and doc comments kept without their item. */
const attachmentFailures: string[] = [];
let attachmentsChecked = 0;
/** (g) markers of files with kept lines, and those hiding lines no dearer than themselves. */
const markerCost = { all: 0, cheap: 0 };
/** (j) markers that do not show what they hide, and the rarer ones placed in a string or too deep. */
const shapeFailures: string[] = [];
const placeFailures: string[] = [];
const shapeCounts: MarkerCounts = { markers: 0, hidden: 0 };
/** (k) the same under a budget: names where they fit, counts elsewhere. */
const budgetFailures: string[] = [];
const budgetCounts: MarkerCounts = { markers: 0, hidden: 0, hiding: 0, naming: 0 };

describe('prune properties on polyglot-dev', () => {
  beforeAll(async () => {
    for (const c of cases) {
      const input = await checkSyntax(c.code, c.lang);
      const chains = await clauseHeaderChains(c.code, c.lang);
      const items = await attachmentItems(c.code, c.lang);
      const spans = await textSpans(c.code, c.lang);
      const defsOf = new Map<string, Awaited<ReturnType<typeof definitions>>>();
      for (const mode of MODES) {
        const req = { code: c.code, query: c.query, path: c.path, ratio: mode.ratio };
        const r = await pruner.prune(req);
        const bad = checkInvariants(c.code, r);
        if (bad) failures.push(`${c.path} [${mode.name}] ${bad}`);
        if (mode.ratio && r.tokensOut > Math.floor(r.tokensIn / mode.ratio) && r.tokensIn > 0 && !loneMarkerOverBudget(r))
          failures.push(`${c.path} [${mode.name}] over budget: ${r.tokensOut} > ${r.tokensIn}/${mode.ratio}`);
        // (f) a budget that affords real content is never answered with a lone marker
        if (mode.name === 'ratio4' && r.tokensIn >= 2000 && r.kept.length === 0)
          failures.push(`${c.path} [${mode.name}] collapsed to a marker (${r.tokensIn} tokens in)`);
        countCheapMarkers(c.code, r);
        // the definitions of the language the pipeline read the file as (a `.h` file is C)
        if (!defsOf.has(r.language)) defsOf.set(r.language, await definitions(c.code, r.language));
        if (!mode.ratio)
          for (const v of markerViolations(c.code, r, spans, defsOf.get(r.language)!, shapeCounts))
            (/inside a comment or string|deeper than/.test(v) ? placeFailures : shapeFailures).push(`${c.path} [${mode.name}] ${v}`);
        // (a budget keeps no line for where markers fall; it omits what would hold a marker in text)
        else for (const v of markerViolations(c.code, r, spans, defsOf.get(r.language)!, budgetCounts)) budgetFailures.push(`${c.path} [${mode.name}] ${v}`);
        if (chains && mode.name !== 'ratio8') {
          clauseChecked++;
          const v = clauseViolations(chains, r.keepMask);
          if (v.length) clauseFailures.push(`${c.path} [${mode.name}] ${v.length}: ${v.slice(0, 2).join('; ')}`);
        }
        if (items) {
          attachmentsChecked += items.size;
          const v = attachmentViolations(items, r.keepMask);
          if (v.length) attachmentFailures.push(`${c.path} [${mode.name}] ${v.length}: ${v.slice(0, 2).join('; ')}`);
        }
        if (mode.name === 'ratio4') {
          const again: PruneResult = await pruner.prune(req);
          if (again.text !== r.text) failures.push(`${c.path} [${mode.name}] not deterministic`);
        }
        if (input.hasGrammar && input.ok) {
          const out = await checkSyntax(r.text, c.lang);
          rows.push({ lang: c.lang, mode: mode.name, inputOk: true, outputOk: out.ok });
        }
      }
    }
  }, 600_000);

  it(`covers all ${AT_LEAST.files} files`, () => {
    expect(cases.length).toBe(AT_LEAST.files);
  });

  it('(g) fewer than 1% of markers hide lines that cost no more tokens than the marker', () => {
    expect(markerCost.all).toBeGreaterThan(AT_LEAST.markers);
    expect(markerCost.cheap / markerCost.all).toBeLessThan(0.01);
  });

  it('(a,b,d,e) every output is honest, partitioned, deterministic and within budget', () => {
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('(h) no kept line is shown under the wrong clause (ratio 4 and threshold mode)', () => {
    expect(clauseChecked).toBeGreaterThan(AT_LEAST.clauses);
    expect(clauseFailures.slice(0, 10)).toEqual([]);
  });

  it('(i) attributes, decorators and doc comments are never kept without their item', () => {
    expect(attachmentsChecked).toBeGreaterThan(AT_LEAST.attachments);
    expect(attachmentFailures.slice(0, 10)).toEqual([]);
  });

  it('(j) markers name what they hide, at its depth, never for one line, never inside a comment or string', () => {
    expect(shapeCounts.markers).toBeGreaterThan(AT_LEAST.markers / 4);
    expect(shapeCounts.hidden).toBeGreaterThan(AT_LEAST.hidden);
    expect(shapeFailures.slice(0, 10)).toEqual([]);
    expect(placeFailures.slice(0, 10)).toEqual([]);
  });

  it('(k) under a budget, markers name or count what they hide, at its depth, never for one line, never inside a comment or string', () => {
    expect(budgetCounts.hiding).toBeGreaterThan(AT_LEAST.markers / 4);
    expect(budgetFailures.slice(0, 10)).toEqual([]);
    // names are paid for with what the lines left of the budget: many markers get them
    expect(budgetCounts.naming! / budgetCounts.hiding!).toBeGreaterThan(0.4);
  });

  it('(c) outputs of cleanly parsing files still parse in >= 99% of files, per language and mode', () => {
    const byKey = new Map<string, { ok: number; all: number }>();
    for (const r of rows) {
      const k = `${r.lang}/${r.mode}`;
      const v = byKey.get(k) ?? { ok: 0, all: 0 };
      v.all++;
      if (r.outputOk) v.ok++;
      byKey.set(k, v);
    }
    const below = [...byKey].filter(([, v]) => v.ok / v.all < 0.99).map(([k, v]) => `${k}: ${v.ok}/${v.all}`);
    expect(below).toEqual([]);
    expect(byKey.size).toBeGreaterThan(20);
  });
});

describe('budget mode under random budgets (fast-check)', () => {
  const sample = cases.filter((_, i) => i % (FULL_CORPUS ? 31 : 5) === 0);
  it('never exceeds the budget and kept sets nest as the budget grows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: sample.length - 1 }),
        fc.integer({ min: 0, max: 4000 }),
        fc.integer({ min: 1, max: 3000 }),
        async (ci, t1, dt) => {
          const c = sample[ci];
          const small = await pruner.prune({ code: c.code, query: c.query, path: c.path, tokens: t1 });
          const big = await pruner.prune({ code: c.code, query: c.query, path: c.path, tokens: t1 + dt });
          if (!loneMarkerOverBudget(small)) expect(small.tokensOut).toBeLessThanOrEqual(t1);
          if (!loneMarkerOverBudget(big)) expect(big.tokensOut).toBeLessThanOrEqual(t1 + dt);
          // in characters too (markers' names counted as the budget counts them)
          const chars = await pruner.prune({ code: c.code, query: c.query, path: c.path, maxChars: 4 * t1 + dt });
          if (!loneMarkerOverBudget(chars)) expect(chars.text.length).toBeLessThanOrEqual(4 * t1 + dt);
          expect(checkInvariants(c.code, small)).toBeNull();
          // (k) under any budget, in tokens or characters: no marker inside a comment or string
          const spans = await textSpans(c.code, c.lang);
          for (const r of [small, big, chars])
            expect(markerViolations(c.code, r, spans, []).filter((v) => v.includes('inside a comment or string'))).toEqual([]);
          // (h) under any budget: a clause header the budget cannot afford takes its body with it
          const chains = await clauseHeaderChains(c.code, c.lang);
          if (chains) for (const r of [small, big]) expect(clauseViolations(chains, r.keepMask)).toEqual([]);
          // Nesting holds for the score-ranked seeds; repair/gap filling may differ at the edges,
          // so check that almost every line kept at the small budget is kept at the bigger one.
          let lost = 0;
          let kept = 0;
          small.keepMask.forEach((v, i) => {
            if (v) {
              kept++;
              if (!big.keepMask[i]) lost++;
            }
          });
          // (the budget's order weighs what a line costs with its headers and markers; polyglot's
          // hono streaming.test.tsx from 2,144 to 3,893 tokens loses 15 of 244 lines, 11 of 242 by
          // score alone: the syntax fix of the larger selection drops one test's opening lines)
          expect(lost).toBeLessThanOrEqual(Math.max(2, Math.ceil(kept * 0.07)));
        },
      ),
      { numRuns: 25, seed: 42 },
    );
  });
});

/**
 * The one exception to the budget: a budget too small for even one marker gets that one marker
 * (and a warning saying so), since an empty output would lose the lines without a trace.
 */
function loneMarkerOverBudget(r: PruneResult): boolean {
  const lines = r.text.split('\n').filter((l) => l !== '');
  return lines.length === 1 && MARKER_RE.test(lines[0]) && r.warnings.some((w) => w.includes('too small even for a marker'));
}

function countCheapMarkers(code: string, r: PruneResult): void {
  if (r.shape !== 'raw' || r.kept.length === 0) return;
  const lines = code.split('\n');
  const out = r.text.split('\n');
  for (const [a, b] of r.omitted) {
    const marker = out.find((l) => l.includes(`omitted (${a}-${b})`));
    if (!marker) continue;
    markerCost.all++;
    let hidden = 0;
    for (let i = a - 1; i < b; i++) hidden += countLineTokens(lines[i]);
    if (hidden <= countLineTokens(marker)) markerCost.cheap++;
  }
}
