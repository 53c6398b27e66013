/**
 * Query-free and retrieval baselines, all rendered with skim's marker format and fitted to the
 * same token budgets (see ../budget.ts); the structural outline is in ./outline.ts.
 *  - full: no pruning;
 *  - head: the first lines, until the budget;
 *  - random: lines in a seeded random order, until the budget;
 *  - bm25: the papers' "RAG" baseline: 40-line windows, 10 lines of overlap, ranked by BM25 of
 *    the query, best first, until the budget; when the next window no longer fits whole, the best
 *    window not taken is cut to what fits (else small files would get nothing at 8x). Adaptive: every window scoring at least half the
 *    best window's score (nothing when no query term occurs).
 */
import { Bm25, terms } from '../../core/features/lexical.js';
import { mulberry32 } from '../../train/lamrLoss.js';
import { budgetTokens, fitGroups, toOutput } from '../budget.js';
import { renderMask } from '../render.js';
import type { BenchMethod, Budget, MethodOutput, PreparedFile } from './types.js';

function allLines(f: PreparedFile): number[] {
  return f.doc.lines.map((_, i) => i);
}

export const fullMethod: BenchMethod = {
  name: 'full',
  kind: 'natural',
  async run(f) {
    return { text: f.file.code, keepMask: new Uint8Array(f.doc.lines.length).fill(1), tokensOut: f.tokensIn };
  },
};

function requireRatio(name: string, b: Budget): number {
  if (b.ratio === undefined) throw new Error(`${name} has no adaptive mode`);
  return b.ratio;
}

export const headMethod: BenchMethod = {
  name: 'head',
  kind: 'budgeted-no-adaptive',
  async run(f, b) {
    const groups = allLines(f).map((i) => [i]);
    return fitGroups(f.doc, groups, budgetTokens(f.tokensIn, requireRatio('head', b)), { stopAtFirstMiss: true });
  },
};

/** FNV-1a of a string, to derive a per-file seed from the fixed global seed. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const RANDOM_SEED = 42;

export const randomMethod: BenchMethod = {
  name: 'random',
  kind: 'budgeted-no-adaptive',
  async run(f, b) {
    const order = allLines(f);
    const rnd = mulberry32(RANDOM_SEED ^ hash32(f.key));
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    return fitGroups(
      f.doc,
      order.map((i) => [i]),
      budgetTokens(f.tokensIn, requireRatio('random', b)),
    );
  },
};

export const BM25_WINDOW = 40;
export const BM25_OVERLAP = 10;
/** Adaptive bm25 keeps windows scoring at least this share of the best window. */
export const BM25_ADAPTIVE_CUTOFF = 0.5;

/** Window starts over n lines: stride window-overlap, the last window ending at the last line. */
export function windowStarts(n: number, size = BM25_WINDOW, overlap = BM25_OVERLAP): number[] {
  if (n <= size) return [0];
  const starts: number[] = [];
  const stride = size - overlap;
  for (let s = 0; s + size < n; s += stride) starts.push(s);
  starts.push(n - size);
  return starts;
}

/** Windows ranked best first (ties: earlier first), with their BM25 scores. */
export function rankWindows(f: PreparedFile): { lines: number[]; score: number }[] {
  const n = f.doc.lines.length;
  const wins = windowStarts(n).map((s) => allLines(f).slice(s, Math.min(n, s + BM25_WINDOW)));
  const index = new Bm25(wins.map((w) => w.flatMap((i) => terms(f.doc.lines[i].text))));
  const scores = index.scoreAll(terms(f.query));
  return wins
    .map((lines, k) => ({ lines, score: scores[k], k }))
    .sort((a, b) => b.score - a.score || a.k - b.k)
    .map(({ lines, score }) => ({ lines, score }));
}

export const bm25Method: BenchMethod = {
  name: 'bm25',
  kind: 'budgeted',
  async run(f, b): Promise<MethodOutput> {
    const ranked = rankWindows(f);
    if (b.ratio === undefined) {
      const best = ranked[0]?.score ?? 0;
      const keep = new Uint8Array(f.doc.lines.length);
      if (best > 0) for (const w of ranked) if (w.score >= BM25_ADAPTIVE_CUTOFF * best) for (const i of w.lines) keep[i] = 1;
      return toOutput(renderMask(f.doc, keep));
    }
    const budget = budgetTokens(f.tokensIn, b.ratio);
    const whole = fitGroups(
      f.doc,
      ranked.map((w) => w.lines),
      budget,
    );
    // Cut the best window that did not fit to the budget left: its lines in order.
    const cut = ranked.find((w) => w.lines.some((i) => !whole.keepMask[i]));
    if (!cut) return whole;
    return fitGroups(
      f.doc,
      ranked.filter((w) => w.lines.every((i) => whole.keepMask[i])).map((w) => w.lines),
      budget,
      {
        tail: cut.lines.map((i) => [i]),
      },
    );
  },
};
