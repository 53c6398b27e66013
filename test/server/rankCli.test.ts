/**
 * `skim rank` as a user runs it (in-process, test/helpers/cli.ts): most relevant file first, JSON output, exit codes.
 */

import { describe, expect, it } from 'vitest';
import { runSkim } from '../helpers/cli.js';

/** The command in-process (test/helpers/cli.ts). */
const skim = (...args: string[]) => runSkim(args);
const FILES = ['examples/playground-lru_cache.go', 'examples/playground-http_session.py', 'examples/playground-rate_limiter.ts'];

describe('skim rank', () => {
  it('prints score<TAB>path, most relevant first', async () => {
    const r = await skim('rank', '--query', 'How does the session choose which proxy to use for a URL?', ...FILES);
    expect(r.status).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((x) => x[1]).sort()).toEqual([...FILES].sort());
    expect(rows[0][1]).toBe('examples/playground-http_session.py');
    const scores = rows.map((x) => Number(x[0]));
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('prints JSON with --json and --top, and fails clearly on a missing file', async () => {
    const r = await skim('rank', '--json', '--top', '1', '-q', 'When is an entry evicted from the cache?', ...FILES);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toHaveLength(1);
    expect(out[0].path).toBe('examples/playground-lru_cache.go');
    const missing = await skim('rank', '-q', 'x', 'nope.py');
    expect(missing.status).toBe(66);
    expect(missing.stderr.trim()).toBe('skim: no such file: nope.py');
    expect(missing.stdout).toBe('');
  });
});
