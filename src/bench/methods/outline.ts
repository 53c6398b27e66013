/**
 * `outline`: the query-agnostic structural baseline (what Repomix --compress aims at): the header
 * lines and decorators of every definition scope in the syntax index (functions, classes,
 * methods, ...). Adaptive returns the whole outline; a budget keeps outer scopes before inner
 * ones, in file order.
 */
import { buildSyntaxIndex, ensureGrammar } from '../../core/syntax/index.js';
import { budgetTokens, fitGroups, toOutput } from '../budget.js';
import { renderMask } from '../render.js';
import type { BenchMethod, PreparedFile } from './types.js';

/** Header groups (decorators + header lines of each definition), outer scopes first, then by position. */
export async function outlineGroups(f: PreparedFile): Promise<number[][]> {
  const groups: { lines: number[]; depth: number; start: number }[] = [];
  for (const seg of f.doc.segments) {
    await ensureGrammar(seg.language);
    const texts = seg.lines.map((i) => f.doc.lines[i].text);
    const syn = buildSyntaxIndex(texts, seg.language);
    for (const s of syn.scopes) {
      if (!s.isDefinition) continue;
      const local: number[] = [...s.decorators];
      for (let l = s.start; l <= s.headerEnd; l++) local.push(l);
      groups.push({
        lines: local.filter((l) => l >= 0 && l < seg.lines.length).map((l) => seg.lines[l]),
        depth: syn.lines[s.start]?.depth ?? 0,
        start: seg.lines[s.start] ?? 0,
      });
    }
  }
  groups.sort((a, b) => a.depth - b.depth || a.start - b.start);
  return groups.map((g) => g.lines);
}

export const outlineMethod: BenchMethod = {
  name: 'outline',
  kind: 'budgeted',
  async run(f, b) {
    const groups = await outlineGroups(f);
    if (b.ratio === undefined) {
      const keep = new Uint8Array(f.doc.lines.length);
      for (const g of groups) for (const i of g) keep[i] = 1;
      return toOutput(renderMask(f.doc, keep));
    }
    return fitGroups(f.doc, groups, budgetTokens(f.tokensIn, b.ratio));
  },
};
