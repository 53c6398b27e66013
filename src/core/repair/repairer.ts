/**
 * What selection uses of repair, bound to one document: materialize a selection (closure, gaps,
 * layout) and fix the syntax of an output, all fixes of the call drawing on one parsing budget.
 */

import type { Measure } from '../layout/measure.js';
import type { Materialize, Materialized, SelectionPlan } from '../pipeline/types.js';
import type { SegmentAnalysis } from '../syntax/analyse.js';
import type { Document } from '../types.js';
import { type FixOutcome, type FixWork, fixSyntax, fixWorkFor } from './fixSyntax.js';
import { createMaterialize } from './materialize.js';

export interface Repairer {
  /** Repair is on (the request's `repair`, default true): outputs are closed over and fixed. */
  readonly enabled: boolean;
  /** Seeds -> output, with the repair closure when enabled. */
  readonly materialize: Materialize;
  /** Seeds -> output without the repair closure (gaps only). */
  readonly materializeUnrepaired: Materialize;
  /** The syntax fix of `start` (materialized from `seeds`), rematerializing with `materialize`. */
  fix(start: Materialized, seeds: Uint8Array, budget: number | null, materialize?: Materialize): FixOutcome;
  /** Parsing work the fixes may still spend. */
  readonly work: FixWork;
}

export interface RepairerOptions {
  repair: boolean;
  /** See MaterializeOptions.economy and .budget. */
  economy: boolean;
  budget: boolean;
  measure: Measure;
  /** Characters of the input: the fixes' parsing work is a multiple of it. */
  chars: number;
  /** See MaterializeOptions.pinned. */
  pinned?: Uint8Array;
}

/**
 * How a selection strategy materializes: threshold mode brings back what readability needs and
 * keeps a gap rather than mark it inside a comment; a read kept whole but for what session memory
 * folds, and a budget, bring back only what syntax needs; only a budget drops lines for where
 * markers fall.
 */
export function materializeStyle(strategy: SelectionPlan['strategy']): { economy: boolean; budget: boolean } {
  return { economy: strategy !== 'threshold', budget: strategy === 'budget' };
}

export function createRepairer(doc: Document, analyses: SegmentAnalysis[], opts: RepairerOptions): Repairer {
  const style = { economy: opts.economy, budget: opts.budget, measure: opts.measure, pinned: opts.pinned };
  const materializeUnrepaired = createMaterialize(doc, analyses, { repair: false, ...style });
  const materialize = opts.repair ? createMaterialize(doc, analyses, { repair: true, ...style }) : materializeUnrepaired;
  // Syntax repair re-parses the output after each fix, and a large file has many error sites:
  // its parsing is bounded by a multiple of the input (linear time).
  const work = fixWorkFor(opts.chars);
  return {
    enabled: opts.repair,
    materialize,
    materializeUnrepaired,
    fix: (start, seeds, budget, using = materialize) => fixSyntax(doc, analyses, start, seeds, using, budget, work),
    work,
  };
}
