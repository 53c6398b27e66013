/**
 * Rubric-guided labelling (LaMR §3.1): from the aggregate must-keep lines and the syntax index,
 * derive the dependency rubric (what those lines cannot be read without) and the semantic rubric.
 *
 * dependency = AST closure of the aggregate lines:
 *   - header lines (start..headerEnd) and decorators of every enclosing scope,
 *   - the opening line of a multi-line statement a kept line belongs to (and its closing line),
 *   - paired clauses (try/except/finally, if/elif/else, switch/case),
 *   - import lines binding names the kept lines use, and definition lines of those names,
 *   plus the aggregate lines that are themselves structural (headers, imports, decorators, clauses).
 * semantic = the aggregate lines (teacher gold / commit gold ∪ anchor), minus pure blank lines.
 */
import type { SyntaxIndex } from '../core/types.js';

export interface RubricLabels {
  agg: Uint8Array;
  sem: Uint8Array;
  dep: Uint8Array;
}

export interface ClosureParts {
  headers: Set<number>;
  statements: Set<number>;
  pairs: Set<number>;
  imports: Set<number>;
  definitions: Set<number>;
}

/** The AST closure of a set of lines, split by reason (for reporting). */
export function astClosure(syn: SyntaxIndex, seeds: Iterable<number>, n: number): ClosureParts {
  const parts: ClosureParts = { headers: new Set(), statements: new Set(), pairs: new Set(), imports: new Set(), definitions: new Set() };
  const ok = (j: number): boolean => j >= 0 && j < n;
  for (const i of seeds) {
    const ls = syn.lines[i];
    if (!ls) continue;
    for (const s of ls.scopes) {
      const sc = syn.scopes[s];
      if (!sc) continue;
      for (let j = sc.start; j <= sc.headerEnd; j++) if (ok(j)) parts.headers.add(j);
      for (const d of sc.decorators) if (ok(d)) parts.headers.add(d);
    }
    // the opening line of a multi-line statement (and its last line, which closes it)
    if (ls.stmtStart !== ls.stmtEnd) {
      if (ok(ls.stmtStart)) parts.statements.add(ls.stmtStart);
      if (ok(ls.stmtEnd) && syn.lines[ls.stmtEnd]?.kind === 'closer') parts.statements.add(ls.stmtEnd);
    }
    for (const p of ls.pairs) if (ok(p)) parts.pairs.add(p);
    for (const u of ls.uses) {
      const im = syn.imports.get(u);
      if (im !== undefined && ok(im)) parts.imports.add(im);
      const defs = syn.definitions.get(u);
      // a name defined in many places is too ambiguous to be a high-confidence edge
      if (defs && defs.length <= 2) for (const d of defs) if (ok(d) && d !== i) parts.definitions.add(d);
    }
  }
  return parts;
}

const STRUCTURAL = new Set(['header', 'import', 'decorator', 'clause']);

export function rubricLabels(syn: SyntaxIndex, n: number, agg: number[], support?: number[]): { labels: RubricLabels; closure: ClosureParts } {
  const a = new Uint8Array(n);
  for (const i of agg) if (i >= 0 && i < n) a[i] = 1;
  const sem = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (a[i] && syn.lines[i]?.kind !== 'blank') sem[i] = 1;
  const closure = astClosure(syn, agg, n);
  const dep = new Uint8Array(n);
  for (const set of [closure.headers, closure.statements, closure.pairs, closure.imports, closure.definitions]) for (const j of set) dep[j] = 1;
  for (let i = 0; i < n; i++) if (a[i] && STRUCTURAL.has(syn.lines[i]?.kind ?? '')) dep[i] = 1;
  if (support) for (const j of support) if (j >= 0 && j < n) dep[j] = 1;
  return { labels: { agg: a, sem, dep }, closure };
}

export interface RubricStats {
  files: number;
  aggLines: number;
  /** Lines the closure adds beyond the aggregate lines, by reason (a line may count under several). */
  added: Record<keyof ClosureParts, number>;
  closureOutsideAgg: number;
  /** Teacher support lines outside the aggregate, and how many of them the closure recovers. */
  supportOutsideAgg: number;
  supportRecovered: number;
  depLines: number;
  semLines: number;
}

export function emptyRubricStats(): RubricStats {
  return {
    files: 0,
    aggLines: 0,
    added: { headers: 0, statements: 0, pairs: 0, imports: 0, definitions: 0 },
    closureOutsideAgg: 0,
    supportOutsideAgg: 0,
    supportRecovered: 0,
    depLines: 0,
    semLines: 0,
  };
}

export function accumulateRubricStats(st: RubricStats, labels: RubricLabels, closure: ClosureParts, support?: number[]): void {
  st.files++;
  const a = labels.agg;
  for (const v of a) st.aggLines += v;
  for (const v of labels.dep) st.depLines += v;
  for (const v of labels.sem) st.semLines += v;
  const all = new Set<number>();
  for (const k of Object.keys(closure) as (keyof ClosureParts)[]) {
    for (const j of closure[k]) {
      if (a[j]) continue;
      st.added[k]++;
      all.add(j);
    }
  }
  st.closureOutsideAgg += all.size;
  if (support) {
    for (const j of new Set(support)) {
      if (a[j]) continue;
      st.supportOutsideAgg++;
      if (all.has(j)) st.supportRecovered++;
    }
  }
}
