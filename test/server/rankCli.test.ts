/**
 * `skim rank` from the shell: most relevant file first, JSON output, exit codes.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const skim = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: REPO, encoding: 'utf8' });
const FILES = ['examples/playground-lru_cache.go', 'examples/playground-http_session.py', 'examples/playground-rate_limiter.ts'];

describe('skim rank', () => {
  it('prints score<TAB>path, most relevant first', () => {
    const r = skim('rank', '--query', 'How does the session choose which proxy to use for a URL?', ...FILES);
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

  it('prints JSON with --json and --top, and fails clearly on a missing file', () => {
    const r = skim('rank', '--json', '--top', '1', '-q', 'When is an entry evicted from the cache?', ...FILES);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toHaveLength(1);
    expect(out[0].path).toBe('examples/playground-lru_cache.go');
    const missing = skim('rank', '-q', 'x', 'nope.py');
    expect(missing.status).toBe(66);
    expect(missing.stderr.trim()).toBe('skim: no such file: nope.py');
    expect(missing.stdout).toBe('');
  });
});
