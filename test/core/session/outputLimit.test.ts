/** Session memory records only what a harness output limit lets the agent see. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MARKER_RE, SEEN_VERB } from '../../../src/core/layout/layout.js';
import { parseOutputLimit, visibleSpans } from '../../../src/core/outputLimit.js';
import { createPruner } from '../../../src/core/prune.js';
import { SessionMemory } from '../../../src/core/session/memory.js';

const pruner = createPruner({ scorer: 'heuristic' });
const logging = readFileSync(path.resolve(__dirname, '../../../examples/logging.py'), 'utf8');
const lines = logging.split('\n');
/** Line numbers (1-based) of `text` whose line lies wholly in [a, b) of it. */
function linesWithin(text: string, a: number, b: number): Set<number> {
  const out = new Set<number>();
  let pos = 0;
  text.split('\n').forEach((l, k) => {
    if (pos >= a && pos + l.length <= b) out.add(k + 1);
    pos += l.length + 1;
  });
  return out;
}

describe('output limits', () => {
  it('parses the presets and spellings, and refuses others', () => {
    expect(parseOutputLimit('mini-swe-agent')).toEqual({ chars: 10_000, cut: 'head+tail' });
    expect(parseOutputLimit('20000')).toEqual({ chars: 20_000, cut: 'head' });
    expect(parseOutputLimit('head+tail:300')).toEqual({ chars: 300, cut: 'head+tail' });
    expect(parseOutputLimit('lots')).toBeNull();
    // mini-swe-agent: under 10,000 characters whole, else the first and last 5,000
    expect(visibleSpans(9_999, parseOutputLimit('mini-swe-agent')!)).toEqual([[0, 9_999]]);
    expect(visibleSpans(30_000, parseOutputLimit('mini-swe-agent')!)).toEqual([
      [0, 5_000],
      [25_000, 30_000],
    ]);
  });

  it('a read over a head limit remembers only the lines in the head', async () => {
    const session = new SessionMemory();
    const r = await pruner.prune({ code: logging, path: 'logging.py', session, outputLimit: 'head:2000' });
    expect(r.text).toBe(logging);
    const seen = linesWithin(logging, 0, 2000);
    for (let n = 1; n <= lines.length; n++) expect(session.hasSeen('logging.py', n, lines[n - 1])).toBe(seen.has(n) && lines[n - 1] !== undefined);
    // the next read folds what the head showed, and shows what was cut away
    const again = await pruner.prune({ code: logging, path: 'logging.py', query: 'Where are caplog records cleared?', session });
    const folded = again.text
      .split('\n')
      .map((l) => MARKER_RE.exec(l))
      .filter((m) => m?.[0].includes(SEEN_VERB));
    expect(folded.length).toBeGreaterThan(0);
    for (const m of folded) expect(Number(m![4])).toBeLessThanOrEqual(Math.max(...seen));
  });

  it("mini-swe-agent's preset: the head and the tail are remembered, the middle is not", async () => {
    const session = new SessionMemory();
    await pruner.prune({ code: logging, path: 'logging.py', session, outputLimit: 'mini-swe-agent' });
    expect(logging.length).toBeGreaterThan(10_000);
    const head = linesWithin(logging, 0, 5_000);
    const tail = linesWithin(logging, logging.length - 5_000, logging.length);
    for (let n = 1; n < lines.length; n++) expect(session.hasSeen('logging.py', n, lines[n - 1])).toBe(head.has(n) || tail.has(n));
  });
});
