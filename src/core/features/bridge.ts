/**
 * The learned bridge between natural-language query words and code terms: a translation table
 * assoc(q, c) fitted on (query, labelled lines) pairs. A goal says "redraw", the code says
 * "refresh"/"render": identical-term matching misses that, the table learns it from which code
 * terms end up on the gold lines when the query mentions q.
 *
 * assoc(q, c) = log( P(c on gold lines | q in query, c in file) / P(c on gold lines | c in file) ),
 * smoothed towards the prior with pseudo-count ALPHA. Only positive, well-supported pairs are kept.
 */

export interface BridgeTable {
  /** query term -> [code term, association] pairs, strongest first. */
  table: ReadonlyMap<string, [string, number][]>;
  /** code term -> logit of P(c on gold lines | c in file), a query-independent prior. */
  prior: ReadonlyMap<string, number>;
}

export interface BridgeSample {
  /** Unique normalized query terms. */
  query: string[];
  /** Unique normalized terms of the whole file (or window). */
  file: string[];
  /** Unique normalized terms of the gold lines. */
  gold: string[];
  weight?: number;
}

export interface BridgeFitOptions {
  alpha?: number;
  minPair?: number;
  minQuery?: number;
  topPerQuery?: number;
  minAssoc?: number;
  maxQueryTerms?: number;
}

/** Fit the table in two passes: gold co-occurrence counts, then "c present in the file" counts for surviving pairs. */
export function fitBridge(samples: BridgeSample[], opts: BridgeFitOptions = {}): BridgeTable {
  const alpha = opts.alpha ?? 4;
  const minPair = opts.minPair ?? 2;
  const minQuery = opts.minQuery ?? 3;
  const topPerQuery = opts.topPerQuery ?? 16;
  const minAssoc = opts.minAssoc ?? 0.4;
  const maxQ = opts.maxQueryTerms ?? 80;

  const vocab = new Map<string, number>();
  const names: string[] = [];
  const id = (t: string): number => {
    let v = vocab.get(t);
    if (v === undefined) {
      v = names.length;
      vocab.set(t, v);
      names.push(t);
    }
    return v;
  };
  const K = 1 << 22;
  const qCount = new Map<number, number>();
  const inFile = new Map<number, number>();
  const inGold = new Map<number, number>();
  const pairGold = new Map<number, number>();
  const encoded = samples.map((s) => ({
    q: s.query.slice(0, maxQ).map(id),
    f: new Set(s.file.map(id)),
    g: s.gold.map(id),
    w: s.weight ?? 1,
  }));
  for (const s of encoded) {
    for (const q of s.q) qCount.set(q, (qCount.get(q) ?? 0) + s.w);
    for (const c of s.f) inFile.set(c, (inFile.get(c) ?? 0) + s.w);
    for (const c of s.g) inGold.set(c, (inGold.get(c) ?? 0) + s.w);
    for (const q of s.q) {
      for (const c of s.g) {
        if (c === q) continue;
        const k = q * K + c;
        pairGold.set(k, (pairGold.get(k) ?? 0) + s.w);
      }
    }
  }
  // Candidate code terms per query term.
  const cand = new Map<number, number[]>();
  for (const [k, g] of pairGold) {
    if (g < minPair) continue;
    const q = Math.floor(k / K);
    if ((qCount.get(q) ?? 0) < minQuery) continue;
    const c = k % K;
    let l = cand.get(q);
    if (!l) cand.set(q, (l = []));
    l.push(c);
  }
  const pairFile = new Map<number, number>();
  for (const s of encoded) {
    for (const q of s.q) {
      const l = cand.get(q);
      if (!l) continue;
      for (const c of l) {
        if (!s.f.has(c)) continue;
        const k = q * K + c;
        pairFile.set(k, (pairFile.get(k) ?? 0) + s.w);
      }
    }
  }
  const prior = new Map<string, number>();
  const priorP = (c: number): number => ((inGold.get(c) ?? 0) + 0.5) / ((inFile.get(c) ?? 0) + 5);
  for (const [c, n] of inFile) {
    if (n < 5) continue;
    const p = priorP(c);
    prior.set(names[c], Math.log(p / (1 - p)));
  }
  const table = new Map<string, [string, number][]>();
  for (const [q, l] of cand) {
    const row: [string, number][] = [];
    for (const c of l) {
      const k = q * K + c;
      const g = pairGold.get(k) ?? 0;
      const f = Math.max(g, pairFile.get(k) ?? 0);
      const p0 = Math.min(0.95, priorP(c));
      const a = Math.log((g + alpha * p0) / (f + alpha) / p0);
      if (a >= minAssoc) row.push([names[c], a]);
    }
    if (!row.length) continue;
    row.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    table.set(
      names[q],
      row.slice(0, topPerQuery).map(([c, a]) => [c, Math.round(a * 100) / 100]),
    );
  }
  return { table, prior };
}

/** Code term -> strongest association with any of the query terms. */
export function expandQuery(bridge: BridgeTable, queryTerms: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const q of queryTerms) {
    const row = bridge.table.get(q);
    if (!row) continue;
    for (const [c, a] of row) if ((out.get(c) ?? 0) < a) out.set(c, a);
  }
  return out;
}

export function bridgeToJson(b: BridgeTable): { table: Record<string, [string, number][]>; prior: Record<string, number> } {
  const table: Record<string, [string, number][]> = {};
  for (const k of [...b.table.keys()].sort()) table[k] = b.table.get(k)!;
  const prior: Record<string, number> = {};
  for (const k of [...b.prior.keys()].sort()) prior[k] = Math.round(b.prior.get(k)! * 100) / 100;
  return { table, prior };
}

export function bridgeFromJson(j: { table: Record<string, [string, number][]>; prior: Record<string, number> }): BridgeTable {
  return { table: new Map(Object.entries(j.table)), prior: new Map(Object.entries(j.prior)) };
}

export function emptyBridge(): BridgeTable & { table: Map<string, [string, number][]>; prior: Map<string, number> } {
  return { table: new Map(), prior: new Map() };
}

/**
 * A base table (the shipped one) extended with one fitted on a repository's own commits: per
 * query term, the union of both rows, the stronger association where both have a pair, strongest
 * first, at most `topPerQuery`; the repository's prior wins where it has one. Used by fine-tuning
 * to add a repository's vocabulary ("the query says X, this codebase calls it Y") without
 * forgetting the general table (which keeps no counts to refit from).
 */
export function mergeBridges(base: BridgeTable, extra: BridgeTable, topPerQuery = 16): BridgeTable {
  const table = new Map(base.table);
  for (const [q, row] of extra.table) {
    const merged = new Map(table.get(q) ?? []);
    for (const [c, a] of row) merged.set(c, Math.max(a, merged.get(c) ?? -Infinity));
    table.set(q, [...merged].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, topPerQuery));
  }
  const prior = new Map(base.prior);
  for (const [c, v] of extra.prior) prior.set(c, v);
  return { table, prior };
}
