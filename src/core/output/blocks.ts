/**
 * Which compiler and linter diagnostics an agent fixing the build needs: every error, whole; where
 * the build printed an error, the warnings around it fold, whole diagnostics at a time, unless one
 * names what the goal hint or the task asks about; where it printed none, the warnings are what the
 * agent is looking at, and only the repeats of a kind beyond its first few examples fold.
 */
import { rareHolders } from './relevance.js';
import { type DiagnosticBlock, INCLUDE_CHAIN } from './shapes/diagnostics.js';
import type { LineRole } from './types.js';

/** Diagnostics of one kind shown as its examples when the output has no error. */
export const KIND_EXAMPLES = 3;

export interface BlockPlan {
  blocks: readonly DiagnosticBlock[];
  /** Per block: 1 when it folds. */
  folds: Uint8Array;
  /**
   * Per line: 0 outside any diagnostic, 1 shown (a kept diagnostic, whole, or the context of one),
   * 2 folded (a folded diagnostic, or context no kept diagnostic shares).
   */
  state: Uint8Array;
}

/**
 * `termsByLine`: the question's terms each line holds (relevance.ts); `relevant`: the lines that
 * name what the question asks about on their own.
 */
export function planBlocks(termsByLine: readonly ReadonlySet<string>[], blocks: readonly DiagnosticBlock[], relevant: Uint8Array): BlockPlan {
  const folds = new Uint8Array(blocks.length);
  const state = new Uint8Array(termsByLine.length);
  // A diagnostic names what the agent asks about when a line of it (or of its context) does, or
  // when it holds a term of the question few diagnostics hold (relevance.ts, one diagnostic a unit
  // with its context's terms). A context is read once however many diagnostics share it: a long
  // include chain before thousands of warnings is not read again for each.
  const termsIn = (from: number, to: number) => {
    const terms = new Set<string>();
    for (let i = from; i <= to; i++) for (const t of termsByLine[i]) terms.add(t);
    return terms;
  };
  const contexts = new Map<string, { range: readonly [number, number]; terms: Set<string>; named: boolean; shown: boolean }>();
  const contextOf = (b: DiagnosticBlock) => {
    if (!b.context) return null;
    const key = contextKey(b.context);
    let c = contexts.get(key);
    if (!c) {
      let named = false;
      for (let i = b.context[0]; i <= b.context[1] && !named; i++) named = relevant[i] === 1;
      c = { range: b.context, terms: termsIn(b.context[0], b.context[1]), named, shown: false };
      contexts.set(key, c);
    }
    return c;
  };
  const asUnits = rareHolders(
    blocks.map((b) => {
      const terms = termsIn(b.from, b.to);
      for (const t of contextOf(b)?.terms ?? []) terms.add(t);
      return terms;
    }),
  );
  const anyError = blocks.some((b) => b.severity === 'error');
  const shownOfKind = new Map<string, number>();
  blocks.forEach((b, k) => {
    let named = asUnits[k] === 1 || contextOf(b)?.named === true;
    for (let i = b.from; i <= b.to && !named; i++) named = relevant[i] === 1;
    if (b.severity === 'error' || named) return;
    if (anyError) {
      folds[k] = 1;
      return;
    }
    const shown = shownOfKind.get(b.kind) ?? 0;
    if (shown < KIND_EXAMPLES) shownOfKind.set(b.kind, shown + 1);
    else folds[k] = 1;
  });
  // a context is shown when a diagnostic that shares it is
  blocks.forEach((b, k) => {
    const c = contextOf(b);
    if (c && !folds[k]) c.shown = true;
  });
  for (const c of contexts.values()) state.fill(c.shown ? 1 : 2, c.range[0], c.range[1] + 1);
  blocks.forEach((b, k) => {
    state.fill(folds[k] ? 2 : 1, b.from, b.to + 1);
  });
  return { blocks, folds, state };
}

/** A context's key: diagnostics that share a context share its range. */
export function contextKey(context: readonly [number, number]): string {
  return `${context[0]}-${context[1]}`;
}

/**
 * What a fold of diagnostics hides: `80 warnings (52 unused_variables, 28 dead_code)`, the
 * diagnostics whose header lies in lines from..to (0-based), the most frequent kinds first.
 */
export function blocksLabel(plan: BlockPlan, from: number, to: number): string {
  const bySeverity = new Map<string, number>();
  const byKind = new Map<string, number>();
  let n = 0;
  // (the blocks are in order: from the first one the fold holds, not over all of them for each fold)
  let lo = 0;
  let hi = plan.blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (plan.blocks[mid].from < from) lo = mid + 1;
    else hi = mid;
  }
  for (let k = lo; k < plan.blocks.length && plan.blocks[k].from <= to; k++) {
    const b = plan.blocks[k];
    if (!plan.folds[k]) continue;
    n++;
    bySeverity.set(b.severity, (bySeverity.get(b.severity) ?? 0) + 1);
    byKind.set(b.kind, (byKind.get(b.kind) ?? 0) + 1);
  }
  const what = bySeverity.size === 1 ? `${[...bySeverity.keys()][0]}${n === 1 ? '' : 's'}` : n === 1 ? 'diagnostic' : 'diagnostics';
  const kinds = [...byKind].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const cut = kinds.length > MAX_KINDS_NAMED + 1 ? MAX_KINDS_NAMED : kinds.length;
  const named = kinds.slice(0, cut).map(([kind, c]) => `${c} ${kind}`);
  const rest = kinds.slice(cut);
  if (rest.length > 0) named.push(`${rest.reduce((s, [, c]) => s + c, 0)} of ${rest.length} other kinds`);
  return `${n} ${what} (${named.join(', ')})`;
}

/** Kinds a marker names before it counts the rest. */
const MAX_KINDS_NAMED = 4;

/**
 * A diagnostic that stays is shown whole: none of its lines is left to the learned judgement (a
 * compiler's notes in system headers still fold by their rule, as frames outside the project do,
 * with the include chain printed before one). Sets the roles and labels in place.
 */
export function keepDiagnosticsWhole(plan: BlockPlan, lines: readonly string[], roles: LineRole[], labels: (string | undefined)[]): void {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (plan.state[i] !== 1 || roles[i] === 'routine') continue;
    if (INCLUDE_CHAIN.test(lines[i]) && i + 1 < lines.length && roles[i + 1] === 'routine') {
      roles[i] = 'routine';
      labels[i] = labels[i + 1];
      continue;
    }
    roles[i] = 'signal';
    labels[i] = undefined;
  }
}
