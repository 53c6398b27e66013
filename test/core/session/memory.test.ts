/** Session memory: lines shown before, unchanged, collapse into "unchanged since an earlier read" markers. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MARKER_RE, SEEN_VERB } from '../../../src/core/layout/layout.js';
import { createPruner } from '../../../src/core/prune.js';
import { normalizeSessionPath, SessionMemory } from '../../../src/core/session/memory.js';
import { checkSyntax } from '../../../src/core/syntax/index.js';
import { checkInvariants } from '../../helpers/invariants.js';

const pruner = createPruner();
const logging = readFileSync(path.resolve(__dirname, '../../../examples/logging.py'), 'utf8');
const lines = logging.split('\n');
const Q = 'Where are the caplog records replaced instead of cleared?';

/** `cat -n` of lines a..b (1-based, inclusive). */
function numbered(text: string, a: number, b: number): string {
  return (
    text
      .split('\n')
      .slice(a - 1, b)
      .map((l, k) => `${String(a + k).padStart(6)}\t${l}`)
      .join('\n') + '\n'
  );
}

describe('session memory', () => {
  it('collapses a window the session was shown whole, and names its range', async () => {
    const session = new SessionMemory();
    const first = await pruner.prune({ code: logging, path: 'src/_pytest/logging.py', session });
    expect(first.text).toBe(logging); // no query: whole, and remembered
    const window = numbered(logging, 300, 420);
    const again = await pruner.prune({ code: window, path: './src/_pytest/logging.py', query: Q, session });
    expect(checkInvariants(window, again)).toBeNull();
    expect(again.text).toContain(`121 lines ${SEEN_VERB} (300-420)`);
    expect(again.seenLines).toBe(121);
    expect(again.tokensOut).toBeLessThan(40);
  });

  it('never collapses a line that changed since it was shown (an edit in between)', async () => {
    const session = new SessionMemory();
    await pruner.prune({ code: numbered(logging, 300, 420), path: 'logging.py', session });
    const edited = lines.slice();
    edited[349] = edited[349] + '  # edited';
    const again = await pruner.prune({ code: numbered(edited.join('\n'), 300, 420), path: 'logging.py', query: Q, session });
    expect(checkInvariants(numbered(edited.join('\n'), 300, 420), again)).toBeNull();
    const shownEdit = again.text.split('\n').find((l) => l.includes('# edited'));
    expect(shownEdit).toBeDefined();
    // every marker is a seen marker, and none covers line 350
    for (const l of again.text.split('\n').filter((x) => MARKER_RE.test(x))) {
      expect(l).toContain(SEEN_VERB);
      const m = MARKER_RE.exec(l)!;
      expect(Number(m[3]) > 350 || Number(m[4]) < 350).toBe(true);
    }
  });

  it('follows lines through an edit above them: they fold with a marker naming both ranges; a line changed among them is shown', async () => {
    const session = new SessionMemory();
    await pruner.prune({ code: numbered(logging, 1, 450), path: 'logging.py', session });
    const edited = lines.slice();
    edited.splice(20, 0, '# one', '# two', '# three'); // 3 lines inserted above
    edited[349 + 3] += '  # edited'; // and line 350 (now 353) changed
    const code = numbered(edited.join('\n'), 1, 453);
    const again = await pruner.prune({ code, path: 'logging.py', query: Q, session });
    expect(checkInvariants(code, again)).toBeNull();
    expect(again.text).toContain('# edited');
    expect(again.text).toMatch(/lines unchanged since an earlier read, then at \d+-\d+ \(\d+-\d+\)/);
    for (const l of again.text.split('\n')) {
      const m = /(\d+) lines? unchanged since an earlier read, then at (\d+)-(\d+) \((\d+)-(\d+)\)/.exec(l);
      if (!m) continue;
      const [count, was, wasEnd, now, nowEnd] = m.slice(1).map(Number);
      expect(wasEnd - was).toBe(nowEnd - now);
      expect(nowEnd - now + 1).toBe(count);
      // each folded line is the line shown then at its earlier number
      for (let k = 0; k <= nowEnd - now; k++) expect(edited[now + k - 1]).toBe(lines[was + k - 1]);
      expect(now <= 353 && 353 <= nowEnd).toBe(false);
    }
    expect(MARKER_RE.test(again.text.split('\n').find((l) => l.includes('then at'))!)).toBe(true);
  });

  it('keeps the output parseable: a collapsed function body gets a placeholder', async () => {
    const session = new SessionMemory();
    await pruner.prune({ code: logging, path: 'logging.py', session });
    const edited = lines.slice();
    edited[340] = edited[340] + '  # edited';
    const code = edited.join('\n');
    const r = await pruner.prune({ code, path: 'logging.py', query: Q, session });
    expect(checkInvariants(code, r)).toBeNull();
    expect(r.text).toContain('# edited');
    expect((await checkSyntax(r.text, 'python')).ok).toBe(true);
    expect(r.tokensOut).toBeLessThan(r.tokensIn / 5);
  });

  it('a raw window given its first line is remembered at its file line numbers', async () => {
    const session = new SessionMemory();
    const window = lines.slice(119, 180).join('\n') + '\n';
    await pruner.prune({ code: window, path: 'logging.py', firstLine: 120, session });
    expect(session.hasSeen('logging.py', 120, lines[119])).toBe(true);
    expect(session.hasSeen('logging.py', 1, lines[119])).toBe(false);
    const r = await pruner.prune({ code: numbered(logging, 100, 200), path: 'logging.py', query: Q, session });
    // (lines 120-121 close a docstring opened at 117, which was never shown: they stay)
    expect(r.text).toContain(`59 lines ${SEEN_VERB} (122-180)`);
    expect(r.text).toContain('   100\t');
  });

  it('does not cross sessions, and needs a path', async () => {
    const a = new SessionMemory();
    await pruner.prune({ code: logging, path: 'logging.py', session: a });
    const b = new SessionMemory();
    const r = await pruner.prune({ code: logging, path: 'logging.py', session: b });
    expect(r.text).toBe(logging);
    const noPath = await pruner.prune({ code: logging, session: a });
    expect(noPath.text).toBe(logging);
  });

  it('is bounded: the least recently read file goes first', () => {
    const m = new SessionMemory({ maxFiles: 2, maxChars: 1000 });
    m.recordLines('a.py', [[1, 'x']]);
    m.recordLines('b.py', [[1, 'y']]);
    m.recordLines('a.py', [[2, 'z']]); // a is now the most recent
    m.recordLines('c.py', [[1, 'w']]);
    expect(m.hasSeen('b.py', 1, 'y')).toBe(false);
    expect(m.hasSeen('a.py', 1, 'x')).toBe(true);
    m.recordLines('d.py', [[1, 'v'.repeat(999)]]);
    expect(m.size.chars).toBeLessThanOrEqual(1000);
    expect(m.hasSeen('d.py', 1, 'v'.repeat(999))).toBe(true);
  });

  it('round-trips through a snapshot', () => {
    const m = new SessionMemory();
    m.recordLines('./x//y.py', [[3, 'a = 1']]);
    const back = SessionMemory.fromSnapshot(JSON.parse(JSON.stringify(m.snapshot())));
    expect(back.hasSeen('x/y.py', 3, 'a = 1')).toBe(true);
    expect(normalizeSessionPath('./././a\\b.py')).toBe('a/b.py');
  });

  it("a copy's changes applied to another copy count among that copy's changes, forgets included", () => {
    const stored = new SessionMemory();
    stored.recordLines('a.py', [[1, 'old = 1']]);
    stored.noteRead('a.py');
    // a request's copy of the session, and a worker's copy of that copy
    const copy = SessionMemory.fromSnapshot(stored.snapshot());
    const worker = SessionMemory.fromSnapshot(copy.snapshot());
    worker.forget('a.py');
    worker.recordLines('b.py', [[2, 'b = 2']]);
    worker.noteRead('b.py', 'k1');
    copy.applyChanges(worker.changes());
    expect(copy.hasSeen('a.py', 1, 'old = 1')).toBe(false);
    // what the copy hands on to the store takes all of it to the session as it is there
    stored.applyChanges(copy.changes());
    expect(stored.hasSeen('a.py', 1, 'old = 1')).toBe(false);
    expect(stored.hasSeen('b.py', 2, 'b = 2')).toBe(true);
    expect(stored.readCount).toBe(2);
    expect(stored.hasRead('k1')).toBe(true);
    copy.clearChanges();
    expect(copy.changes()).toMatchObject({ forgetAll: false, forget: [], files: [], reads: 0, recent: [] });
  });

  it('under a budget, the unseen part of a run that is one line is shown, not marked (a file read again after an edit moved its lines)', async () => {
    const session = new SessionMemory();
    const q = 'how is the log level set?';
    await pruner.prune({ code: logging, query: q, path: 'src/_pytest/logging.py', session });
    const edited = logging.replace('import io\n', '');
    const r = await pruner.prune({ code: edited, query: `${q} now`, path: 'src/_pytest/logging.py', session, maxChars: 6000 });
    expect(r.text).toContain(SEEN_VERB);
    expect(checkInvariants(edited, r)).toBeNull();
    expect(r.text.split('\n').filter((l) => /\b1 line omitted/.test(l))).toEqual([]);
    expect(r.text.length).toBeLessThanOrEqual(6000);
  });
});
