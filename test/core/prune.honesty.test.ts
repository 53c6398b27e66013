/**
 * Small honesty defects (issue #20 D): `kept` covers every returned line, grep paths with colons
 * are grep paths.
 */
import { describe, expect, it } from 'vitest';
import { ingest } from '../../src/core/ingest/ingest.js';
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

describe('grep output whose paths contain colons', () => {
  const lines = ['C:/src/app.py:12:def handle(request):', 'C:/src/app.py-13-    return respond(request)', '--', 'C:\\src\\util.py:5:def respond(request):', 'src/a:b.py:7:x = 1'];

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
