/**
 * Exact token-budget fitting for the line-selection baselines: add groups of lines (windows,
 * headers, single lines) in priority order while an estimate stays under budget, then render
 * for real and drop the last groups until the rendered output fits. Output tokens include the
 * omission markers, as they do for skim.
 */
import { countLineTokens, countTokens } from '../core/tokens/count.js';
import type { Document } from '../core/types.js';
import type { MethodOutput } from './methods/types.js';
import { markerText, type Rendered, renderMask } from './render.js';

export interface FitOptions {
  /** Stop at the first group that does not fit (a prefix, e.g. head) instead of trying the next ones. */
  stopAtFirstMiss?: boolean;
  /** Groups tried after `groups`, stopping at the first that does not fit (e.g. a truncated window). */
  tail?: number[][];
}

/** Incrementally maintained mask with an estimate of the rendered token count. */
class MaskEstimate {
  readonly keep: Uint8Array;
  private lineCost: number[];
  tokens = 0;
  runs: number;

  constructor(
    readonly doc: Document,
    readonly markerCost: number,
  ) {
    const n = doc.lines.length;
    this.keep = new Uint8Array(n);
    this.lineCost = doc.lines.map((l) => countLineTokens(l.prefix + l.text));
    this.runs = n > 0 ? 1 : 0;
  }

  get estimate(): number {
    return this.tokens + this.runs * this.markerCost;
  }

  /** Omitted runs change when line i flips: both neighbours omitted => split/merge, both kept => run appears/vanishes. */
  private runDelta(i: number): number {
    const n = this.keep.length;
    const leftOm = i > 0 && !this.keep[i - 1];
    const rightOm = i < n - 1 && !this.keep[i + 1];
    if (leftOm && rightOm) return 1;
    if (!leftOm && !rightOm) return -1;
    return 0;
  }

  add(i: number): boolean {
    if (this.keep[i]) return false;
    this.runs += this.runDelta(i);
    this.keep[i] = 1;
    this.tokens += this.lineCost[i];
    return true;
  }

  remove(i: number): void {
    this.keep[i] = 0;
    this.runs -= this.runDelta(i);
    this.tokens -= this.lineCost[i];
  }
}

export function toOutput(r: Rendered): MethodOutput {
  return { text: r.text, keepMask: r.shown, tokensOut: countTokens(r.text) };
}

export function fitGroups(doc: Document, groups: number[][], budgetTokens: number, opts: FitOptions = {}): MethodOutput {
  const lang = doc.segments[0]?.language ?? 'text';
  // A wide marker plus its indentation: estimates should err on the high side.
  const markerCost = countTokens('        ' + markerText(lang, 999, 9999, 9999) + '\n');
  const m = new MaskEstimate(doc, markerCost);
  const added: number[][] = [];
  const pass = (gs: number[][], stopAtFirstMiss: boolean) => {
    for (const g of gs) {
      const flipped: number[] = [];
      for (const i of g) if (m.add(i)) flipped.push(i);
      if (flipped.length === 0) continue;
      if (m.estimate > budgetTokens) {
        for (let k = flipped.length - 1; k >= 0; k--) m.remove(flipped[k]);
        if (stopAtFirstMiss) break;
        continue;
      }
      added.push(flipped);
    }
  };
  pass(groups, opts.stopAtFirstMiss ?? false);
  if (opts.tail) pass(opts.tail, true);
  // Exact check: the estimate ignores merges across lines and lone gaps shown in full.
  let out = toOutput(renderMask(doc, m.keep));
  while (out.tokensOut > budgetTokens && added.length > 0) {
    const last = added.pop()!;
    for (let k = last.length - 1; k >= 0; k--) m.remove(last[k]);
    out = toOutput(renderMask(doc, m.keep));
  }
  return out;
}

export function budgetTokens(tokensIn: number, ratio: number): number {
  return Math.floor(tokensIn / ratio);
}
