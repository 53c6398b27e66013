/**
 * A stand-in prune runner for testing the HTTP layer's own behaviour (limits, errors, wire
 * formats) independently of the core: it keeps the lines that contain a query word.
 */
import { SkimError } from '../../src/core/errors.js';
import type { PruneRequest, PruneResult } from '../../src/core/types.js';
import type { PruneRunner } from '../../src/server/runner.js';

export interface FakeOptions {
  delayMs?: number;
  fail?: string;
  usageError?: string;
}

/** fakePrune as the async prune function the tools take. */
export const fakePruneAsync = async (req: PruneRequest): Promise<PruneResult> => fakePrune(req);

export function fakePrune(req: PruneRequest): PruneResult {
  const lines = req.code.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const words = (req.query ?? '')
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 2);
  const keepMask = new Uint8Array(lines.map((l) => (words.some((w) => l.toLowerCase().includes(w)) ? 1 : 0)));
  const kept: [number, number][] = [];
  const omitted: [number, number][] = [];
  keepMask.forEach((k, i) => {
    const list = k ? kept : omitted;
    const last = list[list.length - 1];
    if (last && last[1] === i) last[1] = i + 1;
    else list.push([i + 1, i + 1]);
  });
  const text = lines.filter((_, i) => keepMask[i]).join('\n');
  const score = lines.length ? keepMask.reduce((a, b) => a + b, 0) / lines.length : 0;
  return {
    text,
    kept,
    omitted,
    score,
    tokensIn: req.code.length,
    tokensOut: text.length,
    language: req.language ?? 'text',
    ms: 0,
    shape: 'raw',
    warnings: [],
    diagnostics: [],
    keepMask,
    ...(req.explain ? { explain: lines.map((_, i) => ({ line: i + 1, score: keepMask[i], kept: keepMask[i] === 1 })) } : {}),
  };
}

export function fakeRunner(opts: FakeOptions = {}): PruneRunner & { calls: PruneRequest[] } {
  const calls: PruneRequest[] = [];
  return {
    kind: 'fake',
    calls,
    async prune(req) {
      calls.push(req);
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (opts.usageError) throw new SkimError(opts.usageError, 'EUSAGE');
      if (opts.fail) throw new Error(opts.fail);
      return fakePrune(req);
    },
    close: async () => {},
  };
}
