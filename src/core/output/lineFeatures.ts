/**
 * The features of an output line for the learned judgement of which plain lines an agent will use
 * (lineModel.ts): what the rules say of it, whether the question names it, how particular its
 * words are in this output, where it sits, and what kind of output it is in.
 */
import { isBlank, shapeOf, termsOf } from './lines.js';
import { RARE_IN_OUTPUT } from './relevance.js';
import type { ShapeKind } from './shapes/index.js';
import type { LineRole } from './types.js';

export const LINE_FEATURES = [
  'bias',
  'role-signal',
  'role-routine',
  'relevant',
  'query-terms',
  'task-terms',
  'rare-terms',
  'log-length',
  'blank',
  'indented',
  'first-lines',
  'last-lines',
  'relative-position',
  'log-output-lines',
  'log-alike-run',
  'path-like',
  'frame',
  'kind-test',
  'kind-listing',
  'kind-script',
  'kind-build',
  'kind-other',
] as const;

export interface LineFeatureInput {
  lines: readonly string[];
  roles: readonly LineRole[];
  relevant: Uint8Array;
  query: string;
  task: string;
  kind: ShapeKind;
}

/** Row-major features: LINE_FEATURES.length values per line. */
export function lineFeatures(o: LineFeatureInput): Float64Array {
  const F = LINE_FEATURES.length;
  const n = o.lines.length;
  const out = new Float64Array(n * F);
  const queryTerms = new Set(termsOf(o.query));
  const taskTerms = new Set(termsOf(o.task));
  const lineTerms = o.lines.map((l) => new Set(termsOf(l)));
  const holders = new Map<string, number>();
  for (const ts of lineTerms) for (const t of ts) holders.set(t, (holders.get(t) ?? 0) + 1);
  const shapes = o.lines.map(shapeOf);
  const alike = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && shapes[j] === shapes[i]) j++;
    for (let k = i; k < j; k++) alike[k] = j - i;
    i = j;
  }
  const kind = o.kind === 'test' || o.kind === 'listing' || o.kind === 'script' || o.kind === 'build' ? o.kind : 'other';
  for (let i = 0; i < n; i++) {
    const l = o.lines[i];
    const row = i * F;
    let q = 0;
    let t = 0;
    let rare = 0;
    for (const term of lineTerms[i]) {
      if (queryTerms.has(term)) q++;
      if (taskTerms.has(term)) t++;
      if ((holders.get(term) ?? 0) <= RARE_IN_OUTPUT) rare++;
    }
    const v = [
      1,
      o.roles[i] === 'signal' ? 1 : 0,
      o.roles[i] === 'routine' ? 1 : 0,
      o.relevant[i],
      Math.min(q, 4) / 4,
      Math.min(t, 4) / 4,
      Math.min(rare, 6) / 6,
      Math.log1p(l.length) / 6,
      isBlank(l) ? 1 : 0,
      /^\s/.test(l) ? 1 : 0,
      i < 3 ? 1 : 0,
      i >= n - 3 ? 1 : 0,
      n > 1 ? i / (n - 1) : 0,
      Math.log1p(n) / 8,
      Math.log1p(alike[i]) / 5,
      /[\w.-]+\/[\w./-]+/.test(l) ? 1 : 0,
      /^\s+File "|^\s+at /.test(l) ? 1 : 0,
      kind === 'test' ? 1 : 0,
      kind === 'listing' ? 1 : 0,
      kind === 'script' ? 1 : 0,
      kind === 'build' ? 1 : 0,
      kind === 'other' ? 1 : 0,
    ];
    out.set(v, row);
  }
  return out;
}
