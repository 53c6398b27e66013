/**
 * Term statistics the line features share: each line's terms with document frequencies over the
 * segment's lines, the query terms present in the file, and per line its BM25 against the query,
 * coverage and bridge mass.
 */
import type { BridgeTable } from './bridge.js';
import { MIN_ROOT, rawTokens, rootOf, termsOfTokens } from './lexical.js';
import type { QueryInfo } from './queryAnalysis.js';

/** Each line's raw tokens and its terms as integer ids, with document frequencies over lines. */
export interface LineTerms {
  raw: string[][];
  ids: Int32Array[];
  /** term id -> term */
  term: string[];
  /** term -> id */
  id: Map<string, number>;
  /** term id -> number of lines containing it */
  df: number[];
  totalLen: number;
}

export function lineTerms(lines: string[]): LineTerms {
  const n = lines.length;
  const lineRaw: string[][] = new Array(n);
  const lineIds: Int32Array[] = new Array(n);
  const termId = new Map<string, number>();
  const termStr: string[] = [];
  const dfArr: number[] = [];
  const lastSeen: number[] = [];
  // identifiers repeat a lot within a file: normalize each distinct token once
  const tokenIds = new Map<string, number[]>();
  let totalLen = 0;
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const raw = rawTokens(lines[i]);
    lineRaw[i] = raw;
    ids.length = 0;
    for (const tok of raw) {
      let tt = tokenIds.get(tok);
      if (!tt) {
        tt = [];
        for (const x of termsOfTokens([tok])) {
          let id = termId.get(x);
          if (id === undefined) {
            id = termStr.length;
            termId.set(x, id);
            termStr.push(x);
            dfArr.push(0);
            lastSeen.push(-1);
          }
          tt.push(id);
        }
        tokenIds.set(tok, tt);
      }
      for (const id of tt) {
        ids.push(id);
        if (lastSeen[id] !== i) {
          lastSeen[id] = i;
          dfArr[id]++;
        }
      }
    }
    const lineTerms = new Int32Array(ids.length); // a plain copy: Int32Array.from iterates slowly
    for (let k = 0; k < ids.length; k++) lineTerms[k] = ids[k];
    lineIds[i] = lineTerms;
    totalLen += ids.length;
  }
  return { raw: lineRaw, ids: lineIds, term: termStr, id: termId, df: dfArr, totalLen };
}

/**
 * The query terms present in the file, indexed 0.., with their idf-weighted query weight. A query
 * word the file lacks is matched in the form the file uses (fileVariants), at VARIANT_WEIGHT of its
 * weight: a hint says "positivity" or "serialization", the code "positive", "serializer".
 */
export interface QueryTerms {
  index: Map<string, number>;
  idfW: number[];
  /** total idf-weighted mass of the query terms in the file */
  mass: number;
  maxIdf: number;
  /** 1 for a term from a code-like part of the query */
  isCode: Uint8Array;
  codeMass: number;
}

/**
 * Weight of a file's variant of a query word relative to the word itself: below the hint's own
 * words (a shared root is weaker evidence than the word). Chosen on swebench-dev and goalhint-dev's
 * own hints (0.5 kept their recall; 1 lost 0.005 of swebench-dev's at 8x; docs/experiments.md).
 */
export const VARIANT_WEIGHT = 0.5;

export function queryTerms(q: QueryInfo, lt: LineTerms, n: number): QueryTerms {
  const idf = (t: string): number => {
    const id = lt.id.get(t);
    const d = (id === undefined ? undefined : lt.df[id]) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  const index = new Map<string, number>();
  const idfW: number[] = [];
  const code: number[] = [];
  let mass = 0;
  let maxIdf = 1e-9;
  let codeMass = 0;
  const add = (t: string, v: number, isCode: boolean): void => {
    index.set(t, idfW.length);
    idfW.push(v);
    code.push(isCode ? 1 : 0);
    mass += v;
    if (v > maxIdf) maxIdf = v;
    if (isCode) codeMass += v;
  };
  const absent: string[] = [];
  for (const [t, w] of q.weight) {
    if (lt.id.has(t)) add(t, idf(t) * w, q.codeTerms.has(t));
    else absent.push(t);
  }
  for (const [c, word] of fileVariants(absent, q, lt)) add(c, idf(c) * q.weight.get(word)! * VARIANT_WEIGHT, q.codeTerms.has(word));
  mass = Math.max(mass, 1e-9);
  return { index, idfW, mass, maxIdf, isCode: Uint8Array.from(code), codeMass };
}

/**
 * The file's terms that share a root (rootOf) with a query term the file does not contain, and are
 * not query terms themselves, each with that query term (the heaviest, when several share the root).
 */
function fileVariants(absent: string[], q: QueryInfo, lt: LineTerms): Map<string, string> {
  const out = new Map<string, string>();
  const byRoot = new Map<string, string>();
  for (const t of absent) {
    const r = rootOf(t);
    // a root is the term itself or at least MIN_ROOT long: a shorter one has no other form in the file
    if (r.length < MIN_ROOT) continue;
    const prev = byRoot.get(r);
    if (prev === undefined || q.weight.get(t)! > q.weight.get(prev)!) byRoot.set(r, t);
  }
  if (!byRoot.size) return out;
  // a variant starts with its root: only terms sharing a root's first MIN_ROOT characters are candidates
  const heads = new Set([...byRoot.keys()].map((r) => r.slice(0, MIN_ROOT)));
  for (const c of lt.term) {
    if (!heads.has(c.slice(0, MIN_ROOT)) || q.weight.has(c)) continue;
    const word = byRoot.get(rootOf(c));
    if (word !== undefined) out.set(c, word);
  }
  return out;
}

/** Per line: BM25 against the query (all terms, code terms), coverage, bridge mass, term prior. */
export interface LineMatch {
  bm25: Float64Array;
  codeBm: Float64Array;
  cov: Float64Array;
  nMatch: Float64Array;
  maxIdf: Float64Array;
  bridge: Float64Array;
  prior: Float64Array;
  /** indexes (QueryTerms) of the query terms on each line */
  matched: number[][];
}

export function matchLines(lt: LineTerms, qt: QueryTerms, q: QueryInfo, table: BridgeTable, n: number): LineMatch {
  const { idfW: qIdfW, isCode: qIsCode } = qt;
  const bm25 = new Float64Array(n);
  const codeBm = new Float64Array(n);
  const cov = new Float64Array(n);
  const nMatch = new Float64Array(n);
  const maxIdf = new Float64Array(n);
  const bridge = new Float64Array(n);
  const prior = new Float64Array(n);
  const matched: number[][] = new Array(n);
  const k1 = 1.2;
  const b = 0.75;
  const avgLen = Math.max(1, lt.totalLen / n);
  // per term id: query index, bridge expansion, prior
  const V = lt.term.length;
  const qOf = new Int32Array(V).fill(-1);
  const expOf = new Float64Array(V);
  const priOf = new Float64Array(V).fill(-Infinity);
  for (let id = 0; id < V; id++) {
    const x = lt.term[id];
    const k = qt.index.get(x);
    if (k !== undefined) qOf[id] = k;
    const e = q.expansion.get(x);
    if (e !== undefined) expOf[id] = e;
    const p = table.prior.get(x);
    if (p !== undefined) priOf[id] = p;
  }
  const cnt = new Float64Array(qIdfW.length);
  const seenStamp = new Int32Array(qIdfW.length).fill(-1);
  for (let i = 0; i < n; i++) {
    const t = lt.ids[i];
    const m: number[] = [];
    let br = 0;
    let pr = -Infinity;
    for (let k = 0; k < t.length; k++) {
      const id = t[k];
      const qk = qOf[id];
      if (qk >= 0) {
        if (seenStamp[qk] !== i) {
          seenStamp[qk] = i;
          cnt[qk] = 0;
          m.push(qk);
          br += expOf[id]; // count each term's bridge mass once per line
        }
        cnt[qk]++;
      } else br += expOf[id]; // bridge-only term (per occurrence)
      if (priOf[id] > pr) pr = priOf[id];
    }
    let s = 0;
    let c = 0;
    let mi = 0;
    let cs = 0;
    const norm = k1 * (1 - b + (b * t.length) / avgLen);
    for (const k of m) {
      const w = qIdfW[k];
      const f = cnt[k];
      const v = (w * f * (k1 + 1)) / (f + norm);
      s += v;
      if (qIsCode[k]) cs += v;
      c += w;
      if (w > mi) mi = w;
    }
    matched[i] = m;
    bm25[i] = s;
    codeBm[i] = cs;
    cov[i] = c / qt.mass;
    nMatch[i] = m.length;
    maxIdf[i] = mi / qt.maxIdf;
    bridge[i] = br;
    prior[i] = pr === -Infinity ? 0 : 1 / (1 + Math.exp(-pr));
  }
  return { bm25, codeBm, cov, nMatch, maxIdf, bridge, prior, matched };
}

/** Sums over a window of `w` lines either side, via prefix sums. */
export function windowed(a: Float64Array, w: number): Float64Array {
  const n = a.length;
  const pre = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) pre[i + 1] = pre[i] + a[i];
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = pre[Math.min(n, i + w + 1)] - pre[Math.max(0, i - w)];
  return out;
}

/** The largest value of `a`, at least 0. */
export const maxOf = (a: Float64Array): number => {
  let m = 0;
  for (const v of a) if (v > m) m = v;
  return m;
};
