/**
 * Budget order by value per marginal cost: the line that brings the most keep probability for
 * what it adds to the output goes next. What a line adds is its own cost, the headers of the
 * scopes around it that no chosen line has paid for yet (repair brings them back), and a marker
 * when it opens a new kept run in the middle of an omitted one (one less when it joins two runs).
 */
import type { SegmentAnalysis } from '../syntax/analyse.js';
import type { Document } from '../types.js';

export interface CostOrderOptions {
  /** Exponent on the marginal cost: 0 is plain value order. */
  gamma: number;
  /** What a marker costs, in the budget's unit. */
  markerCost: number;
  /** A line's own cost in the budget's unit. */
  lineCost: (i: number) => number;
  /** Order by cost until the chosen lines cost this much (in the budget's unit); the rest follows in value order. */
  orderUpTo: number;
}

interface ScopeCost {
  cost: number;
  /** Doc indexes of the lines the scope holds (header to end); its header ends at `headerTo` (a line there does not pay for its own scope). */
  from: number;
  to: number;
  headerTo: number;
}

/** Max-heap of (ratio, line, version) entries in typed arrays; ties go to the higher prior, then the earlier line. */
class Heap {
  private r = new Float64Array(64);
  private line = new Int32Array(64);
  private v = new Int32Array(64);
  size = 0;
  constructor(private readonly prior: Float64Array | undefined) {}
  private before(a: number, b: number): boolean {
    if (this.r[a] !== this.r[b]) return this.r[a] > this.r[b];
    const pd = (this.prior?.[this.line[a]] ?? 0) - (this.prior?.[this.line[b]] ?? 0);
    if (pd !== 0) return pd > 0;
    return this.line[a] < this.line[b];
  }
  private swap(a: number, b: number): void {
    const r = this.r[a];
    this.r[a] = this.r[b];
    this.r[b] = r;
    const l = this.line[a];
    this.line[a] = this.line[b];
    this.line[b] = l;
    const v = this.v[a];
    this.v[a] = this.v[b];
    this.v[b] = v;
  }
  push(ratio: number, line: number, version: number): void {
    if (this.size === this.r.length) {
      const grow = <T extends Float64Array | Int32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.r = grow(this.r);
      this.line = grow(this.line);
      this.v = grow(this.v);
    }
    let k = this.size++;
    this.r[k] = ratio;
    this.line[k] = line;
    this.v[k] = version;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!this.before(k, p)) break;
      this.swap(k, p);
      k = p;
    }
  }
  /** Removes the top entry; returns its line and version. */
  pop(): { line: number; version: number } {
    const top = { line: this.line[0], version: this.v[0] };
    this.size--;
    if (this.size > 0) {
      this.r[0] = this.r[this.size];
      this.line[0] = this.line[this.size];
      this.v[0] = this.v[this.size];
      let k = 0;
      for (;;) {
        const l = 2 * k + 1;
        let m = k;
        if (l < this.size && this.before(l, m)) m = l;
        if (l + 1 < this.size && this.before(l + 1, m)) m = l + 1;
        if (m === k) break;
        this.swap(k, m);
        k = m;
      }
    }
    return top;
  }
}

/**
 * `eligible` lines (doc indexes, in value order) in greedy order of value / marginal cost^gamma
 * after the best line, until `orderUpTo` is spent; the rest follow in value order. `value` is the
 * priority budget mode ranks by.
 */
export function costAwareOrder(
  doc: Document,
  analyses: readonly SegmentAnalysis[],
  eligible: readonly number[],
  value: Float64Array,
  prior: Float64Array | undefined,
  opts: CostOrderOptions,
): number[] {
  const n = doc.lines.length;
  const blank = new Uint8Array(n);
  for (let i = 0; i < n; i++) blank[i] = doc.lines[i].text.trim() === '' ? 1 : 0;
  const cost = new Float64Array(n);
  for (const i of eligible) cost[i] = opts.lineCost(i);
  // per segment: its scopes' costs and each line's enclosing scopes (global ids)
  const scopes: ScopeCost[] = [];
  const lineScopes: number[][] = new Array(n);
  const brings = new Float64Array(n);
  const segOf = new Int32Array(n).fill(-1);
  doc.segments.forEach((seg, s) => {
    const syntax = analyses[s]?.syntax;
    if (!syntax) return;
    for (const i of seg.lines) segOf[i] = s;
    const base = scopes.length;
    const last = seg.lines.length - 1;
    for (const sc of syntax.scopes) {
      let c = 0;
      for (const r of sc.decorators) if (r <= last) c += opts.lineCost(seg.lines[r]);
      for (let r = sc.start; r <= Math.min(sc.headerEnd, last); r++) c += opts.lineCost(seg.lines[r]);
      if (analyses[s].info.braces && sc.end > sc.headerEnd && sc.end <= last) c += opts.lineCost(seg.lines[sc.end]);
      scopes.push({
        cost: c,
        from: seg.lines[Math.min(sc.start, last)],
        to: seg.lines[Math.min(sc.end, last)],
        headerTo: seg.lines[Math.min(sc.headerEnd, last)],
      });
    }
    const scopeStarts = new Set(syntax.scopes.map((sc) => sc.start));
    syntax.lines.forEach((ls, r) => {
      const i = seg.lines[r];
      if (i === undefined) return;
      if (ls.scopes.length > 0) lineScopes[i] = ls.scopes.map((j) => base + j);
      // what repair brings with the line besides headers (../repair/repair.ts): the ends of its statement,
      // the clauses before it that it pairs with (an `else` needs its `if`); counted as if never paid
      const rows = new Set<number>();
      if (ls.stmtStart >= 0 && ls.stmtStart !== r) rows.add(ls.stmtStart);
      if (ls.stmtEnd >= 0 && ls.stmtEnd !== r && !scopeStarts.has(ls.stmtStart)) rows.add(ls.stmtEnd);
      for (const p of ls.pairs) if (p < r) rows.add(p);
      for (const row of rows) if (row <= last) brings[i] += opts.lineCost(seg.lines[row]);
    });
  });
  // nearest non-blank line of the same segment above / below (-1: none)
  const up = new Int32Array(n).fill(-1);
  const down = new Int32Array(n).fill(-1);
  for (let i = 1, last = -1; i < n; i++) {
    if (!blank[i - 1]) last = i - 1;
    up[i] = last >= 0 && segOf[last] === segOf[i] ? last : -1;
  }
  for (let i = n - 2, next = -1; i >= 0; i--) {
    if (!blank[i + 1]) next = i + 1;
    down[i] = next >= 0 && segOf[next] === segOf[i] ? next : -1;
  }
  const paid = new Uint8Array(scopes.length);
  const chosen = new Uint8Array(n);
  const isEligible = new Uint8Array(n);
  for (const i of eligible) isEligible[i] = 1;
  const version = new Int32Array(n);
  // a blank line costs what a line costs on average, and a marker when it would stand alone
  let total = 0;
  let counted = 0;
  for (const i of eligible) {
    if (blank[i]) continue;
    total += cost[i];
    counted++;
  }
  const meanCost = counted > 0 ? total / counted : 1;
  const marginal = (i: number): number => {
    let c = blank[i] ? meanCost : cost[i] + brings[i];
    for (const j of lineScopes[i] ?? []) {
      const sc = scopes[j];
      if (paid[j] || (i >= sc.from && i <= sc.headerTo)) continue;
      c += sc.cost;
    }
    const joined = (up[i] >= 0 && chosen[up[i]] ? 1 : 0) + (down[i] >= 0 && chosen[down[i]] ? 1 : 0);
    c += joined === 0 ? opts.markerCost : joined === 2 ? -opts.markerCost : 0;
    return Math.max(1, c);
  };
  const ratio = (i: number) => value[i] / marginal(i) ** opts.gamma;
  const heap = new Heap(prior);
  for (const i of eligible) heap.push(ratio(i), i, 0);
  const refresh = (i: number) => {
    if (i < 0 || !isEligible[i] || chosen[i]) return;
    version[i]++;
    heap.push(ratio(i), i, version[i]);
  };
  const order: number[] = [];
  let spent = 0;
  // the best line goes first whatever it costs: a budget that affords it keeps it
  const best = eligible.find((i) => !blank[i]);
  if (best !== undefined) heap.push(Number.POSITIVE_INFINITY, best, version[best]);
  while (heap.size > 0 && spent <= opts.orderUpTo) {
    const top = heap.pop();
    const i = top.line;
    if (chosen[i] || top.version !== version[i]) continue;
    spent += marginal(i);
    chosen[i] = 1;
    order.push(i);
    refresh(up[i]);
    refresh(down[i]);
    // the blank lines between it and its neighbours now join a kept run instead of starting one
    for (let k = i - 1; k >= 0 && blank[k] && segOf[k] === segOf[i]; k--) refresh(k);
    for (let k = i + 1; k < n && blank[k] && segOf[k] === segOf[i]; k++) refresh(k);
    for (const j of lineScopes[i] ?? []) {
      if (paid[j]) continue;
      paid[j] = 1;
      const sc = scopes[j];
      for (let k = sc.from; k <= sc.to; k++) refresh(k);
    }
  }
  // past what any budget search looks at, the rest in value order
  for (const i of eligible) if (!chosen[i]) order.push(i);
  return order;
}
