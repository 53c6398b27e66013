/**
 * Scope statistics the line features share: per scope its coverage of the query and bridge mass,
 * function ranks, per line its enclosing scopes, definition names against the query, and the
 * strong lines (BM25 at least half the best) with what they depend on.
 */
import type { Scope, SyntaxIndex } from '../types.js';
import { terms } from './lexical.js';
import type { QueryInfo } from './queryAnalysis.js';
import { type LineMatch, maxOf, type QueryTerms } from './termStatistics.js';

const FUNC_KINDS = new Set(['function', 'method', 'constructor']);

/** Per scope: idf-mass coverage of the union of matched query terms, bridge mass, function ranks. */
export interface ScopeStats {
  cov: Float64Array;
  codeCov: Float64Array;
  bridge: Float64Array;
  maxBridge: number;
  /** the definition covering the most query mass, or -1 */
  best: number;
  /** functions: length-normalized BM25 mass */
  density: Float64Array;
  maxDensity: number;
  funcRank: Float64Array;
  top3: Set<number>;
  /** per line: the definition whose first line it is, or -1 */
  defAt: Int32Array;
  /** the scope's name occurs verbatim in the query */
  nameHit: Uint8Array;
  /** the scope's name is a function of a traceback frame in the query */
  traceback: Uint8Array;
}

export function scopeStats(scopes: Scope[], lm: LineMatch, qt: QueryTerms, q: QueryInfo, n: number): ScopeStats {
  const { idfW: qIdfW, isCode: qIsCode } = qt;
  const S = scopes.length;
  const scopeCov = new Float64Array(S);
  const scopeCodeCov = new Float64Array(S);
  const scopeBridge = new Float64Array(S);
  const stamp = new Int32Array(qIdfW.length).fill(-1);
  for (let s = 0; s < S; s++) {
    const sc = scopes[s];
    let c = 0;
    let cc = 0;
    let br = 0;
    const lo = Math.max(0, sc.start);
    const hi = Math.min(n - 1, sc.end);
    for (let i = lo; i <= hi; i++) {
      for (const k of lm.matched[i]) {
        if (stamp[k] === s) continue;
        stamp[k] = s;
        c += qIdfW[k];
        if (qIsCode[k]) cc += qIdfW[k];
      }
      br += lm.bridge[i];
    }
    scopeCov[s] = c / qt.mass;
    scopeCodeCov[s] = qt.codeMass > 0 ? cc / qt.codeMass : 0;
    scopeBridge[s] = br / Math.sqrt(hi - lo + 1);
  }
  let bestScope = -1;
  let maxScopeBr = 0;
  for (let s = 0; s < S; s++) {
    if (scopes[s].isDefinition && (bestScope < 0 || scopeCov[s] > scopeCov[bestScope])) bestScope = s;
    if (scopeBridge[s] > maxScopeBr) maxScopeBr = scopeBridge[s];
  }
  // function-level scopes ranked by coverage plus length-normalized density of matches
  const funcScore = new Float64Array(S).fill(-1);
  const density = new Float64Array(S);
  let maxDensity = 0;
  const bmPre = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) bmPre[i + 1] = bmPre[i] + lm.bm25[i];
  for (let s = 0; s < S; s++) {
    if (!FUNC_KINDS.has(scopes[s].kind)) continue;
    const lo = Math.max(0, scopes[s].start);
    const hi = Math.min(n - 1, scopes[s].end);
    if (hi < lo) continue;
    density[s] = (bmPre[hi + 1] - bmPre[lo]) / Math.sqrt(hi - lo + 1);
    if (density[s] > maxDensity) maxDensity = density[s];
  }
  const funcIds: number[] = [];
  for (let s = 0; s < S; s++) {
    if (!FUNC_KINDS.has(scopes[s].kind)) continue;
    funcScore[s] = scopeCov[s] + (maxDensity > 0 ? (0.5 * density[s]) / maxDensity : 0);
    funcIds.push(s);
  }
  funcIds.sort((a, c) => funcScore[c] - funcScore[a] || a - c);
  const funcRank = new Float64Array(S);
  funcIds.forEach((s, r) => {
    funcRank[s] = funcScore[s] > 0 ? 1 - r / funcIds.length : 0;
  });
  const top3 = new Set(funcIds.slice(0, 3).filter((s) => funcScore[s] > 0));
  const defAt = new Int32Array(n).fill(-1);
  for (let s = 0; s < S; s++) {
    const st = scopes[s].start;
    if (scopes[s].isDefinition && st >= 0 && st < n && defAt[st] < 0) defAt[st] = s;
  }
  const nameHit = new Uint8Array(S);
  const traceback = new Uint8Array(S);
  for (let s = 0; s < S; s++) {
    const nm = scopes[s].name;
    if (!nm) continue;
    if (nm.length >= 3 && q.raw.has(nm)) nameHit[s] = 1;
    if (q.tbFuncs.has(nm)) traceback[s] = 1;
  }
  return {
    cov: scopeCov,
    codeCov: scopeCodeCov,
    bridge: scopeBridge,
    maxBridge: maxScopeBr,
    best: bestScope,
    density,
    maxDensity,
    funcRank,
    top3,
    defAt,
    nameHit,
    traceback,
  };
}

/** Per line, scopes it belongs to (a definition's header line belongs to the definition), or -1. */
export interface Enclosing {
  /** innermost definition */
  inner: Int32Array;
  /** outermost definition */
  outer: Int32Array;
  /** innermost function, method or constructor */
  fn: Int32Array;
  /** innermost other definition (class, struct, impl, ...) */
  cls: Int32Array;
}

export function enclosingScopes(syn: SyntaxIndex, defAt: Int32Array, n: number): Enclosing {
  const scopes = syn.scopes;
  const inner = new Int32Array(n);
  const outer = new Int32Array(n);
  const fnOf = new Int32Array(n);
  const clsOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let inn = -1;
    let out = -1;
    let cls = -1;
    let fn = -1;
    const ls = syn.lines[i];
    const scs = ls ? ls.scopes : [];
    for (const s of scs) {
      const sc = scopes[s];
      if (!sc) continue;
      if (sc.isDefinition) {
        if (out < 0) out = s;
        inn = s;
        if (!FUNC_KINDS.has(sc.kind)) cls = s;
      }
      if (FUNC_KINDS.has(sc.kind)) fn = s;
    }
    // a header line belongs to the scope it opens
    const s = defAt[i];
    if (s >= 0) {
      inn = s;
      if (out < 0) out = s;
      if (FUNC_KINDS.has(scopes[s].kind)) fn = s;
      else cls = s;
    }
    inner[i] = inn;
    outer[i] = out;
    fnOf[i] = fn;
    clsOf[i] = cls;
  }
  return { inner, outer, fn: fnOf, cls: clsOf };
}

/**
 * Definition names against the query: "_print_Symbol" covers "symbol" from the query; "print",
 * in every name of the file, weighs little (name terms weighted by their rarity among the file's names).
 */
export interface NameStats {
  cov: Float64Array;
  bridge: Float64Array;
  rank: Float64Array;
}

export function nameStats(scopes: Scope[], q: QueryInfo): NameStats {
  const S = scopes.length;
  const nameCov = new Float64Array(S);
  const nameBridge = new Float64Array(S);
  const nameRank = new Float64Array(S);
  const nameTerms: string[][] = new Array(S);
  const dfName = new Map<string, number>();
  let named = 0;
  for (let s = 0; s < S; s++) {
    const nm = scopes[s].isDefinition ? scopes[s].name : undefined;
    nameTerms[s] = nm ? [...new Set(terms(nm, { keepCompound: false }))] : [];
    if (!nameTerms[s].length) continue;
    named++;
    for (const t of nameTerms[s]) dfName.set(t, (dfName.get(t) ?? 0) + 1);
  }
  const idfName = (t: string): number => {
    const d = dfName.get(t) ?? 0;
    return Math.log(1 + (named - d + 0.5) / (d + 0.5));
  };
  const ranked: number[] = [];
  for (let s = 0; s < S; s++) {
    const nt = nameTerms[s];
    if (!nt.length) continue;
    let hit = 0;
    let all = 0;
    let br = 0;
    for (const t of nt) {
      const w = idfName(t);
      all += w;
      if (q.weight.has(t)) hit += w;
      br = Math.max(br, q.expansion.get(t) ?? 0);
    }
    nameCov[s] = all > 0 ? hit / all : 0;
    nameBridge[s] = Math.min(1, br / 3);
    if (nameCov[s] > 0) ranked.push(s);
  }
  ranked.sort((a, c) => nameCov[c] - nameCov[a] || a - c);
  ranked.forEach((s, r) => {
    nameRank[s] = 1 - r / Math.max(1, named);
  });
  return { cov: nameCov, bridge: nameBridge, rank: nameRank };
}

/** Strong lines (BM25 at least half the best) and the lines they depend on. */
export interface StrongLines {
  /** defines a name a strong line uses */
  dependency: Uint8Array;
  /** imports a name a strong line uses */
  importOf: Uint8Array;
  /** header or decorator of a scope enclosing a strong line */
  headerOf: Uint8Array;
  /** exp(-distance to the nearest strong line / 4) */
  near: Float64Array;
}

export function strongLines(syn: SyntaxIndex, bm25: Float64Array, n: number): StrongLines {
  const scopes = syn.scopes;
  const strong = new Uint8Array(n);
  const strongCut = Math.max(0.5 * maxOf(bm25), 1e-9);
  for (let i = 0; i < n; i++) if (bm25[i] >= strongCut && bm25[i] > 0) strong[i] = 1;
  const depOfStrong = new Uint8Array(n);
  const headerOfStrong = new Uint8Array(n);
  const importOfStrong = new Uint8Array(n);
  const near = new Float64Array(n);
  let last = -1e9;
  for (let i = 0; i < n; i++) {
    if (strong[i]) last = i;
    near[i] = i - last;
  }
  last = 1e9;
  for (let i = n - 1; i >= 0; i--) {
    if (strong[i]) last = i;
    near[i] = Math.exp(-Math.min(near[i], last - i) / 4);
  }
  // Each name's definitions and each scope's header are marked once (strong lines share them:
  // marking per strong line would cost strong lines x definitions). A definition line is not
  // marked for its own use of the name: per name, the one strong line using it, or -2 for several.
  const strongUser = new Map<string, number>();
  const scopeDone = new Uint8Array(scopes.length);
  for (let i = 0; i < n; i++) {
    if (!strong[i]) continue;
    const ls = syn.lines[i];
    if (!ls) continue;
    for (const u of ls.uses) {
      if (syn.definitions.has(u)) {
        const prev = strongUser.get(u);
        strongUser.set(u, prev === undefined || prev === i ? i : -2);
      }
      const im = syn.imports.get(u);
      if (im !== undefined && im >= 0 && im < n) importOfStrong[im] = 1;
    }
    for (const s of ls.scopes) {
      const sc = scopes[s];
      if (!sc || scopeDone[s]) continue;
      scopeDone[s] = 1;
      for (let j = sc.start; j <= sc.headerEnd && j < n; j++) headerOfStrong[j] = 1;
      for (const d of sc.decorators) if (d >= 0 && d < n) headerOfStrong[d] = 1;
    }
  }
  for (const [u, user] of strongUser) {
    for (const j of syn.definitions.get(u) ?? []) if (j >= 0 && j < n && j !== user) depOfStrong[j] = 1;
  }
  return { dependency: depOfStrong, importOf: importOfStrong, headerOf: headerOfStrong, near };
}
