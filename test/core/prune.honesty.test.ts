/**
 * Small honesty defects (issue #20 D): `kept` covers every returned line, markers and `omitted`
 * agree one range per marker, grep paths with colons are grep paths, and a budget too small for
 * one marker still says in the output that lines were omitted.
 */
import { describe, expect, it } from 'vitest';
import { ingest } from '../../src/core/ingest/ingest.js';
import { MARKER_RE } from '../../src/core/layout/layout.js';
import { createPruner } from '../../src/core/prune.js';
import { detectLanguage } from '../../src/core/syntax/index.js';
import { checkInvariants } from '../helpers/invariants.js';

const pruner = createPruner({ scorer: 'heuristic' });

describe('kept covers every returned line', () => {
  it('a file whose first byte is NUL comes back whole, and says it kept all of its lines', async () => {
    const code = '\u0000abc\nline two\nline three\n';
    const r = await pruner.prune({ code, query: 'abc' });
    expect(r.text).toBe(code);
    expect(r.kept).toEqual([[1, 3]]);
    expect(r.omitted).toEqual([]);
    expect(r.keepMask).toEqual(new Uint8Array([1, 1, 1]));
    expect(checkInvariants(code, r)).toBeNull();
  });
});

describe('one range per marker when a budget collapses the input', () => {
  const grep = 'src/a.py:3:def alpha():\nsrc/a.py:10:    return beta()\nsrc/b.py:5:def beta():\nsrc/b.py:9:    return 42\n';

  it('grep -n output collapsed to one marker lists that one range', async () => {
    const r = await pruner.prune({ code: grep, query: 'beta', tokens: 12 });
    const markers = r.text.split('\n').filter((l) => MARKER_RE.test(l));
    expect(markers).toHaveLength(1);
    expect(r.omitted).toHaveLength(1);
    expect(r.omitted[0]).toEqual([1, 4]);
    expect(markers[0]).toMatch(/^\.\.\. 4 lines omitted \(1-4\)$/);
    expect(checkInvariants(grep, r)).toBeNull();
  });

  it('when every file fits as its own marker, each marker is a grep marker with its own range', async () => {
    const long = (path: string, from: number) =>
      Array.from({ length: 6 }, (_, i) => `${path}:${from + i * 7}:    total_${i} = compute_the_running_total(records, window=${i}, strict=True)`).join('\n');
    const code = `${long('src/a.py', 3)}\n${long('src/b.py', 5)}\n`;
    const r = await pruner.prune({ code, query: 'running total', tokens: 40 });
    expect(r.text).toBe('... 6 lines omitted, 6 matches (src/a.py:3-38)\n... 6 lines omitted, 6 matches (src/b.py:5-40)\n');
    expect(r.omitted).toEqual([
      [1, 6],
      [7, 12],
    ]);
    expect(checkInvariants(code, r)).toBeNull();
  });

  it('cat -n output collapsed to one marker names its own line numbers, like every other marker', async () => {
    const code = Array.from({ length: 80 }, (_, i) => `${String(i + 101).padStart(6)}\tvalue_${i} = compute(${i})`).join('\n') + '\n';
    const r = await pruner.prune({ code, query: 'value', tokens: 14 });
    expect(r.text).toMatch(/^ {6}\t.*80 lines omitted \(101-180\)\n$/);
    expect(r.omitted).toEqual([[1, 80]]);
    expect(checkInvariants(code, r)).toBeNull();
  });
});

describe('a budget too small for even one marker', () => {
  it('still shows the marker (over the budget, with a warning) rather than an empty output', async () => {
    const code = Array.from({ length: 60 }, (_, i) => `x_${i} = ${i}`).join('\n') + '\n';
    for (const req of [{ tokens: 0 }, { tokens: 3 }, { maxChars: 5 }]) {
      const r = await pruner.prune({ code, query: 'x', language: 'python', ...req });
      expect(r.text).toBe('# ... 60 lines omitted (1-60)\n');
      expect(r.omitted).toEqual([[1, 60]]);
      expect(checkInvariants(code, r)).toBeNull();
      expect(r.warnings.join('\n')).toMatch(/too small even for a marker: the output is one marker \(\d+ (tokens|characters)\), over the budget/);
    }
  });
});

describe('grep output whose paths contain colons', () => {
  const lines = [
    'C:/src/app.py:12:def handle(request):',
    'C:/src/app.py-13-    return respond(request)',
    '--',
    'C:\\src\\util.py:5:def respond(request):',
    'src/a:b.py:7:x = 1',
  ];

  it('is recognised as grep output, with each path and line number exact', () => {
    const doc = ingest(lines.join('\n') + '\n', { detectLanguage });
    expect(doc.shape).toBe('grep');
    expect(doc.segments.map((s) => s.path)).toEqual(['C:/src/app.py', 'C:\\src\\util.py', 'src/a:b.py']);
    expect(doc.lines.map((l) => [l.prefix, l.lineNo])).toEqual([
      ['C:/src/app.py:12:', 12],
      ['C:/src/app.py-13-', 13],
      ['', null],
      ['C:\\src\\util.py:5:', 5],
      ['src/a:b.py:7:', 7],
    ]);
  });

  it('code with colons is still not taken for grep output', () => {
    const code = Array.from({ length: 20 }, (_, i) => `    case ${i}:${i + 1}: return x`).join('\n');
    expect(ingest(code, { detectLanguage }).shape).toBe('raw');
    expect(ingest('key: 12: value\nother: 13: value\n', { detectLanguage }).shape).toBe('raw');
  });
});
