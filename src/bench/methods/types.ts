/** What every benchmarked method sees and returns. */
import type { Document } from '../../core/types.js';
import type { BenchFile } from '../cases.js';

/** `adaptive`: the method's own natural/threshold mode; `4x`, `8x`: output <= input/ratio tokens; `natural`: budgets do not apply. */
export type BudgetLabel = string;

export interface Budget {
  label: BudgetLabel;
  /** Compression ratio for budget mode; undefined for adaptive/natural. */
  ratio?: number;
}

export function parseBudget(s: string): Budget {
  const t = s.trim().toLowerCase();
  if (t === 'adaptive' || t === 'natural') return { label: t };
  const m = /^(\d+(?:\.\d+)?)x?$/.exec(t);
  if (!m || Number(m[1]) < 1) throw new Error(`invalid budget "${s}": use adaptive or a ratio >= 1 such as 4 or 8x`);
  return { label: `${Number(m[1])}x`, ratio: Number(m[1]) };
}

/** One file ready for every method: the parsed Document and the facts all methods share. */
export interface PreparedFile {
  file: BenchFile;
  query: string;
  language: string;
  doc: Document;
  tokensIn: number;
  /** Stable key for seeding and caches. */
  key: string;
}

export interface MethodOutput {
  text: string;
  /** Parallel to the input lines: 1 when the line appears in the output. */
  keepMask: Uint8Array;
  tokensOut: number;
}

export interface BenchMethod {
  readonly name: string;
  /**
   * Budgets the method runs at: `natural` methods run once whatever the requested budgets,
   * `adaptive-only` ones (skim at a fixed threshold) once in adaptive mode.
   */
  readonly kind: 'budgeted' | 'budgeted-no-adaptive' | 'adaptive-only' | 'natural';
  run(f: PreparedFile, budget: Budget): Promise<MethodOutput>;
  /** What exactly ran (e.g. which scorer skim resolved to), for the report's metadata. */
  describe?(): Promise<string>;
}
