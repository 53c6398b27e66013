/**
 * Similarity of a query to each line through term vectors fitted on comment/code co-occurrence
 * (scripts/corpus/fit-term-vectors.py): the query's words and a line's identifiers meet in one
 * space, so a line can match a query it shares no word with. Probe features for
 * scripts/probe-dump.ts (TERMVEC=dir).
 */
import { readFileSync } from 'node:fs';
import { terms } from '../../src/core/features/lexical.js';

export interface TermVectors {
  dim: number;
  nl: Map<string, Float32Array>;
  code: Map<string, Float32Array>;
}

export function loadTermVectors(dir: string): TermVectors {
  const read = (name: string) => {
    const vocab = JSON.parse(readFileSync(`${dir}/${name}.vocab.json`, 'utf8')) as string[];
    const buf = readFileSync(`${dir}/${name}.f32`);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const dim = all.length / vocab.length;
    return { dim, map: new Map(vocab.map((t, i) => [t, all.subarray(i * dim, (i + 1) * dim)])) };
  };
  const nl = read('nl');
  const code = read('code');
  return { dim: nl.dim, nl: nl.map, code: code.map };
}

export const TERMVEC_FEATURES = ['tv_cos', 'tv_cos_win3', 'tv_cos_mean8', 'tv_cos_rank'];

/** Row-major n x 4: cosine of query and line, its ±3-line max, ±8-line mean, rank percentile in the file. */
export function termVectorFeatures(tv: TermVectors, query: string, lines: string[]): Float32Array {
  const n = lines.length;
  const F = TERMVEC_FEATURES.length;
  const out = new Float32Array(n * F);
  const q = new Float64Array(tv.dim);
  let qn = 0;
  for (const t of new Set(terms(query, { keepCompound: false }))) {
    const v = tv.nl.get(t);
    if (!v) continue;
    for (let d = 0; d < tv.dim; d++) q[d] += v[d]!;
    qn++;
  }
  if (qn === 0) return out;
  const qNorm = Math.hypot(...q) || 1;
  const cos = new Float64Array(n);
  const v = new Float64Array(tv.dim);
  for (let i = 0; i < n; i++) {
    v.fill(0);
    let k = 0;
    for (const t of new Set(terms(lines[i]!))) {
      const c = tv.code.get(t);
      if (!c) continue;
      for (let d = 0; d < tv.dim; d++) v[d] += c[d]!;
      k++;
    }
    if (k === 0) continue;
    let dot = 0;
    for (let d = 0; d < tv.dim; d++) dot += v[d]! * q[d]!;
    cos[i] = Math.max(0, dot / (qNorm * (Math.hypot(...v) || 1)));
  }
  const order = [...cos.keys()].sort((a, b) => cos[b]! - cos[a]!);
  const rank = new Float64Array(n);
  order.forEach((i, r) => (rank[i] = 1 - r / Math.max(1, n - 1)));
  for (let i = 0; i < n; i++) {
    let mx = 0;
    for (let j = Math.max(0, i - 3); j <= Math.min(n - 1, i + 3); j++) mx = Math.max(mx, cos[j]!);
    let s = 0;
    let c = 0;
    for (let j = Math.max(0, i - 8); j <= Math.min(n - 1, i + 8); j++) {
      s += cos[j]!;
      c++;
    }
    out.set([cos[i]!, mx, s / c, cos[i]! > 0 ? rank[i]! : 0], i * F);
  }
  return out;
}
