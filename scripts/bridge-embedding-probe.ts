/**
 * The bridge choice, measured (issue: "embeddings, a translation table, or better: choose by
 * measurement"). Fits term embeddings on the same data as the shipped translation table: a
 * truncated SVD (randomized, rank RANK, default 64) of the positive PMI between query terms and the
 * terms of the labelled lines, over all filtered commit train samples and the teacher train split
 * (teacher weight 3). Then ranks each evaluation file's lines by one signal alone (embedding
 * similarity to the query; the shipped table's `bridge_norm`; line BM25) and by each bridge plus
 * BM25, and reports recall of the labelled lines under a 4x character budget (the evaluator's top-k).
 *   RANK=128 npx tsx scripts/bridge-embedding-probe.ts swebench,goalhint,teacher,commits
 * Run from the repository root with ../shared beside it; about 4 minutes.
 */

import { terms } from '../src/core/features/lexical.js';
import { analyzeQuery, FEATURE_NAMES, lineFeatures } from '../src/core/features/lineFeatures.js';
import { loadModel } from '../src/core/model/io.js';
import { type CommitFilterStats, readCases, readCommits, type SampleSource } from '../src/train/datasets.js';
import { loadEvalSets } from '../src/train/evaluate.js';
import { charCosts, recallOf, selectTopK } from '../src/train/metrics.js';
import { loadSyntaxSource } from '../src/train/syntaxSource.js';

const K = Number(process.env.RANK ?? 64);
const t0 = performance.now();
const log = (...a: unknown[]) => console.error(((performance.now() - t0) / 1000).toFixed(0) + 's', ...a);

// 1. samples: the bridge's training data (all filtered commit train samples + teacher train split, teacher weight 3)
const st: CommitFilterStats = { total: 0, noLabels: 0, vagueMessage: 0, hugeDiff: 0, tooShort: 0, kept: 0 };
const commits = (await readCommits('../shared/data/commits.jsonl.gz', { maxTrain: Infinity, maxVal: 0 }, st)).filter((f) => f.split === 'train');
const teacher = (await readCases('../shared/data/teacher-train.jsonl.gz', 'teacher')).filter(
  (f) => f.split === 'train' && f.role === 'gold' && f.agg.length > 0,
);
log('samples', commits.length, teacher.length);
const qv = new Map<string, number>();
const cv = new Map<string, number>();
const pairs = new Map<number, number>(); // q * 2^21 + c -> weight
const qCount: number[] = [];
const cCount: number[] = [];
let total = 0;
const idOf = (m: Map<string, number>, arr: number[], t: string) => {
  let v = m.get(t);
  if (v === undefined) {
    v = arr.length;
    m.set(t, v);
    arr.push(0);
  }
  return v;
};
for (const f of [...commits, ...teacher]) {
  if (f.agg.length === 0) continue;
  const w = f.source === 'teacher' ? 3 : 1;
  const q = [...new Set(terms(f.query))].slice(0, 80);
  const gold = new Set<string>();
  for (const i of f.agg) for (const x of terms(f.lines[i] ?? '')) gold.add(x);
  if (q.length === 0 || gold.size === 0) continue;
  total += w;
  const qi = q.map((t) => idOf(qv, qCount, t));
  const ci = [...gold].map((t) => idOf(cv, cCount, t));
  for (const a of qi) qCount[a] += w;
  for (const c of ci) cCount[c] += w;
  for (const a of qi)
    for (const c of ci) {
      const key = a * 2097152 + c;
      pairs.set(key, (pairs.get(key) ?? 0) + w);
    }
}
log('vocab q', qv.size, 'c', cv.size, 'pairs', pairs.size);
// 2. PPMI over pairs seen at least twice, both terms in >= 3 samples
const rows: number[] = [];
const cols: number[] = [];
const vals: number[] = [];
for (const [key, n] of pairs) {
  if (n < 2) continue;
  const a = Math.floor(key / 2097152);
  const c = key % 2097152;
  if (qCount[a] < 3 || cCount[c] < 3) continue;
  const pmi = Math.log((n * total) / (qCount[a] * cCount[c]));
  if (pmi <= 0) continue;
  rows.push(a);
  cols.push(c);
  vals.push(pmi);
}
const nnz = vals.length;
const Q = qv.size;
const C = cv.size;
log('nnz', nnz);
// 3. randomized SVD: M (Q x C) sparse
const L = K + 10;
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
const mulM = (X: Float64Array, cols_: number) => {
  // M (Q x C) * X (C x cols) -> Q x cols
  const Y = new Float64Array(Q * cols_);
  for (let e = 0; e < nnz; e++) {
    const r = rows[e] * cols_,
      c = cols[e] * cols_,
      v = vals[e];
    for (let j = 0; j < cols_; j++) Y[r + j] += v * X[c + j];
  }
  return Y;
};
const mulMt = (Y: Float64Array, cols_: number) => {
  // M^T (C x Q) * Y (Q x cols) -> C x cols
  const X = new Float64Array(C * cols_);
  for (let e = 0; e < nnz; e++) {
    const r = rows[e] * cols_,
      c = cols[e] * cols_,
      v = vals[e];
    for (let j = 0; j < cols_; j++) X[c + j] += v * Y[r + j];
  }
  return X;
};
const orth = (Y: Float64Array, m: number, cols_: number) => {
  // modified Gram-Schmidt on columns
  for (let j = 0; j < cols_; j++) {
    for (let k = 0; k < j; k++) {
      let d = 0;
      for (let i = 0; i < m; i++) d += Y[i * cols_ + j] * Y[i * cols_ + k];
      for (let i = 0; i < m; i++) Y[i * cols_ + j] -= d * Y[i * cols_ + k];
    }
    let nrm = 0;
    for (let i = 0; i < m; i++) nrm += Y[i * cols_ + j] ** 2;
    nrm = Math.sqrt(nrm) || 1;
    for (let i = 0; i < m; i++) Y[i * cols_ + j] /= nrm;
  }
};
const Om = new Float64Array(C * L).map(() => rnd());
let Y = mulM(Om, L);
orth(Y, Q, L);
for (let it = 0; it < 2; it++) {
  const Z = mulMt(Y, L);
  orth(Z, C, L);
  Y = mulM(Z, L);
  orth(Y, Q, L);
}
const Bt = mulMt(Y, L); // C x L = (Y^T M)^T
// small: B B^T (L x L), eigen by Jacobi
const G = new Float64Array(L * L);
for (let i = 0; i < C; i++)
  for (let a = 0; a < L; a++) {
    const x = Bt[i * L + a];
    if (x === 0) continue;
    for (let b = 0; b < L; b++) G[a * L + b] += x * Bt[i * L + b];
  }
const Vj = new Float64Array(L * L);
for (let i = 0; i < L; i++) Vj[i * L + i] = 1;
for (let sweep = 0; sweep < 30; sweep++) {
  let off = 0;
  for (let p = 0; p < L; p++)
    for (let q = p + 1; q < L; q++) {
      const apq = G[p * L + q];
      off += apq * apq;
      if (Math.abs(apq) < 1e-12) continue;
      const theta = (G[q * L + q] - G[p * L + p]) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1),
        s = t * c;
      for (let k = 0; k < L; k++) {
        const gkp = G[k * L + p],
          gkq = G[k * L + q];
        G[k * L + p] = c * gkp - s * gkq;
        G[k * L + q] = s * gkp + c * gkq;
      }
      for (let k = 0; k < L; k++) {
        const gpk = G[p * L + k],
          gqk = G[q * L + k];
        G[p * L + k] = c * gpk - s * gqk;
        G[q * L + k] = s * gpk + c * gqk;
      }
      for (let k = 0; k < L; k++) {
        const vkp = Vj[k * L + p],
          vkq = Vj[k * L + q];
        Vj[k * L + p] = c * vkp - s * vkq;
        Vj[k * L + q] = s * vkp + c * vkq;
      }
    }
  if (off < 1e-18) break;
}
const eig = Array.from({ length: L }, (_, i) => [G[i * L + i], i])
  .sort((a, b) => b[0] - a[0])
  .slice(0, K);
log(
  'top singular values',
  eig
    .slice(0, 5)
    .map((e) => Math.sqrt(Math.max(0, e[0])).toFixed(1))
    .join(' '),
  '...',
  Math.sqrt(Math.max(0, eig[K - 1][0])).toFixed(2),
);
// query vectors U S^1/2 = (Y Ub) S^1/2 ; code vectors V S^1/2 = Bt Ub S^-1/2
const qVec = new Float64Array(Q * K);
const cVec = new Float64Array(C * K);
eig.forEach(([lam, idx], k) => {
  const s = Math.sqrt(Math.max(lam, 1e-12));
  for (let i = 0; i < Q; i++) {
    let v = 0;
    for (let a = 0; a < L; a++) v += Y[i * L + a] * Vj[a * L + idx];
    qVec[i * K + k] = v * Math.sqrt(s);
  }
  for (let i = 0; i < C; i++) {
    let v = 0;
    for (let a = 0; a < L; a++) v += Bt[i * L + a] * Vj[a * L + idx];
    cVec[i * K + k] = (v / s) * Math.sqrt(s);
  }
});
log('embeddings ready');
const near = (t: string) => {
  const a = qv.get(t);
  if (a === undefined) return '-';
  const sc: [string, number][] = [];
  for (const [c, i] of cv) {
    let d = 0;
    for (let k = 0; k < K; k++) d += qVec[a * K + k] * cVec[i * K + k];
    sc.push([c, d]);
  }
  return sc
    .sort((x, y) => y[1] - x[1])
    .slice(0, 6)
    .map((x) => x[0])
    .join(',');
};
for (const t of ['serial', 'redraw', 'color', 'timeout', 'deprec', 'pars']) console.error(t, '->', near(t));

// 4. rank lines by each signal alone
const loaded = loadModel('models/default');
const syntax = await loadSyntaxSource();
const iBr = FEATURE_NAMES.indexOf('bridge_norm');
const iBm = FEATURE_NAMES.indexOf('bm25_norm');
const F = FEATURE_NAMES.length;
for (const set of (process.argv[2] ?? 'swebench,goalhint').split(',')) {
  const files = (
    set === 'teacher'
      ? (await readCases('../shared/data/teacher-train.jsonl.gz', 'teacher')).filter((f) => f.split === 'val')
      : set === 'commits'
        ? (await loadEvalSets({ commits: '../shared/data/commits.jsonl.gz' }))[0].files
        : await readCases(`../shared/bench/${set}-dev.jsonl.gz`, set as SampleSource)
  ).filter((f) => f.role === 'gold' && f.agg.length > 0);
  const h = { emb: 0, tab: 0, bm: 0, embBm: 0, tabBm: 0, lab: 0 };
  for (const f of files) {
    await syntax.prepare(f.lang);
    const syn = syntax.build(f.lines, f.lang);
    const X = lineFeatures(
      { query: f.query, lines: f.lines, syntax: syn, language: f.lang, path: f.path },
      { bridge: loaded.bridge },
      analyzeQuery(f.query, loaded.bridge),
    );
    const n = f.lines.length;
    // query vector: weighted sum of query term vectors (1 + log tf)
    const qw = new Map<string, number>();
    for (const t of terms(f.query)) qw.set(t, (qw.get(t) ?? 0) + 1);
    const qvec = new Float64Array(K);
    for (const [t, c] of qw) {
      const a = qv.get(t);
      if (a === undefined) continue;
      const w = 1 + Math.log(c);
      for (let k = 0; k < K; k++) qvec[k] += w * qVec[a * K + k];
    }
    const emb = new Float64Array(n),
      tab = new Float64Array(n),
      bm = new Float64Array(n),
      eb = new Float64Array(n),
      tb = new Float64Array(n);
    let maxE = 1e-12;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (const t of new Set(terms(f.lines[i]))) {
        const c = cv.get(t);
        if (c === undefined) continue;
        let d = 0;
        for (let k = 0; k < K; k++) d += qvec[k] * cVec[c * K + k];
        if (d > 0) s += d;
      }
      emb[i] = s;
      if (s > maxE) maxE = s;
      tab[i] = X[i * F + iBr];
      bm[i] = X[i * F + iBm];
    }
    for (let i = 0; i < n; i++) {
      eb[i] = emb[i] / maxE + bm[i];
      tb[i] = tab[i] + bm[i];
    }
    const cc = charCosts(f.lines);
    const tot = cc.reduce((a, b) => a + b, 0);
    const r = (s: Float64Array) => recallOf(selectTopK(s, cc, tot / 4), f.agg).hit;
    h.emb += r(emb);
    h.tab += r(tab);
    h.bm += r(bm);
    h.embBm += r(eb);
    h.tabBm += r(tb);
    h.lab += f.agg.length;
  }
  const p = (x: number) => (x / h.lab).toFixed(3);
  console.log(
    `${set} R@4x alone: embedding (rank ${K}) ${p(h.emb)}, table ${p(h.tab)}, bm25 ${p(h.bm)}; with bm25 (sum of normalized): embedding ${p(h.embBm)}, table ${p(h.tabBm)}`,
  );
}
