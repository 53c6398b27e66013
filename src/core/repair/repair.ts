/**
 * Repair (design 2.5): after selection, add back what kept lines cannot be read without:
 * enclosing scope headers and their decorators, the first (and closing) line of a multi-line
 * statement, lines that close brackets/blocks opened on kept lines, paired clauses
 * (try/except/finally, if/elif/else), and the import or definition header of names a
 * score-kept line uses. Works on one segment; indexes are segment-local.
 */
import type { SyntaxIndex } from '../types.js';

export type KeepReason =
  | 'score'
  | 'header'
  | 'decorator'
  | 'statement'
  | 'closer'
  | 'pair'
  | 'import'
  | 'definition'
  | 'gap'
  | 'small';

export interface RepairOptions {
  /** Pull imports/definitions of names used by score-kept lines (default true). */
  dependencies?: boolean;
  /** At most this many definition headers pulled per used name (default 2). */
  maxDefinitionsPerName?: number;
}

/**
 * Close `mask` (1 = kept) under the dependency rules. `reasons` receives why each added line came
 * back; lines already kept keep their reason. Returns the number of lines added.
 */
export function repairClosure(
  mask: Uint8Array,
  syntax: SyntaxIndex,
  reasons: (KeepReason | undefined)[],
  opts: RepairOptions = {},
): number {
  const n = mask.length;
  const useDeps = opts.dependencies ?? true;
  const maxDefs = opts.maxDefinitionsPerName ?? 2;
  const queue: number[] = [];
  const seeds = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (mask[i]) {
      queue.push(i);
      if (reasons[i] === 'score' || reasons[i] === undefined) seeds[i] = 1;
    }
  }
  let added = 0;
  const add = (j: number, why: KeepReason) => {
    if (j < 0 || j >= n || mask[j]) return;
    mask[j] = 1;
    reasons[j] = why;
    queue.push(j);
    added++;
  };

  while (queue.length > 0) {
    const i = queue.pop()!;
    const ls = syntax.lines[i];
    if (!ls) continue;
    if (ls.kind === 'blank') continue;
    for (const k of ls.scopes) {
      const s = syntax.scopes[k];
      if (!s) continue;
      for (let h = s.start; h <= s.headerEnd; h++) add(h, 'header');
      for (const d of s.decorators) add(d, 'decorator');
    }
    // A scope that starts on this line: its multi-line header and decorators come along.
    if (ls.kind === 'header' || ls.kind === 'clause') {
      for (const s of scopesStartingAt(syntax, i)) {
        for (let h = s.start; h <= s.headerEnd; h++) add(h, 'header');
        for (const d of s.decorators) add(d, 'decorator');
      }
    }
    if (ls.stmtStart !== i && ls.stmtStart >= 0) add(ls.stmtStart, 'statement');
    if (ls.stmtEnd !== i && ls.stmtEnd >= 0 && !isScopeStart(syntax, ls.stmtStart)) add(ls.stmtEnd, 'statement');
    for (const c of ls.closers) add(c, 'closer');
    for (const p of ls.pairs) add(p, 'pair');
    if (useDeps && seeds[i]) {
      for (const name of ls.uses) {
        const imp = syntax.imports.get(name);
        if (imp !== undefined) add(imp, 'import');
        const defs = syntax.definitions.get(name);
        if (defs && !ls.defines.includes(name)) {
          for (const d of defs.slice(0, maxDefs)) if (d !== i) add(d, 'definition');
        }
      }
    }
  }
  return added;
}

let scopeStartCache: WeakMap<SyntaxIndex, Map<number, number[]>> = new WeakMap();

function scopeStarts(syntax: SyntaxIndex): Map<number, number[]> {
  let m = scopeStartCache.get(syntax);
  if (!m) {
    m = new Map();
    syntax.scopes.forEach((s, k) => {
      const list = m!.get(s.start);
      if (list) list.push(k);
      else m!.set(s.start, [k]);
    });
    scopeStartCache.set(syntax, m);
  }
  return m;
}

function scopesStartingAt(syntax: SyntaxIndex, line: number) {
  return (scopeStarts(syntax).get(line) ?? []).map((k) => syntax.scopes[k]);
}

function isScopeStart(syntax: SyntaxIndex, line: number): boolean {
  return scopeStarts(syntax).has(line);
}

/** Test hook: forget cached scope tables. */
export function resetRepairCaches(): void {
  scopeStartCache = new WeakMap();
}
