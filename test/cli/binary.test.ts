/**
 * The real binary (bin/skim.js from the build, as a process), once per command: the other CLI
 * tests run the same program in-process (test/helpers/cli.ts); these prove the process around it
 * works: the entry, the bundle or the modules it loads, the exit code reaching the shell.
 */
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { spawnSkim } from '../helpers/cli.js';

const EXAMPLE = 'examples/logging.py';
const Q = 'Where are the caplog records replaced instead of cleared?';

describe('bin/skim.js', () => {
  it('--version and --help', () => {
    const v = spawnSkim(['--version']);
    expect([v.status, v.stdout]).toEqual([0, `${VERSION}\n`]);
    const h = spawnSkim(['--help']);
    expect(h.status).toBe(0);
    for (const cmd of ['prune', 'cat', 'grep', 'rank', 'serve', 'mcp', 'bench', 'train', 'data', 'adapt']) expect(h.stdout).toContain(cmd);
  });

  it('the read commands answer (the bundle)', () => {
    const p = spawnSkim(['prune', EXAMPLE, '--query', Q, '--ratio', '4']);
    expect(p.status).toBe(0);
    expect(p.stdout).toMatch(/lines omitted/);
    const r = spawnSkim(['rank', '--query', Q, EXAMPLE, 'examples/playground-lru_cache.go']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/\texamples\/logging\.py$/);
  });

  // the others reach their own module through the program; a usage error proves the way and the exit code
  it.each(['bench', 'train', 'model-eval', 'data mine', 'adapt'])('%s: a usage error exits 64 with one line', (cmd) => {
    const r = spawnSkim([...cmd.split(' '), '--no-such-option']);
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/^error: (unknown|required) option/);
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
