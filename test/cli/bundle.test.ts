/**
 * bin/skim.js runs the read commands from the bundle (dist/skim-read.cjs, made by `npm run build`)
 * with its code cache: the same bytes out, the same exit codes, as the modules themselves (here
 * run in-process, test/helpers/cli.ts). Needs a built dist/, as bin/skim.js does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runSkim } from '../helpers/cli.js';

const built = existsSync(path.join(ROOT, 'dist/skim-read.cjs'));
const Q = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';

/** No SKIM_* setting from the environment; no daemon. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('SKIM_')) delete env[k];
  env.SKIM_DAEMON = '0'; // the bundle itself, not a daemon (test/cli/daemon.*.test.ts)
  return env;
}

const normalize = (r: { out: string; err: string; code: number | null }) => ({ ...r, err: r.err.replace(/\d+(\.\d+)? ms/g, 'N ms') });

/** The built binary (the bundle, for these commands), as a process. */
function bundled(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(), input, encoding: 'utf8' });
  return normalize({ out: r.stdout, err: r.stderr, code: r.status });
}

/** The modules themselves, in-process. */
async function modules(args: string[], input?: string) {
  const env: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith('SKIM_')) env[k] = undefined;
  const r = await runSkim(args, { input, env });
  return normalize({ out: r.stdout, err: r.stderr, code: r.status });
}

describe.skipIf(!built)('the bundled read commands', () => {
  const cases: [string, string[], string?][] = [
    ['prune, threshold mode', ['prune', 'examples/logging.py', '--query', Q]],
    ['prune at ratio 4, --json without the time', ['prune', 'examples/logging.py', '--query', Q, '--ratio', '4', '--json']],
    ['prune from stdin', ['prune', '-', '--query', Q, '--tokens', '800'], readFileSync(path.join(ROOT, 'examples/logging.py'), 'utf8')],
    ['cat --focus on two files', ['cat', 'examples/logging.py', 'examples/playground-lru_cache.go', '--focus', Q]],
    ['grep --focus', ['grep', '-C', '3', 'records', 'examples', '--focus', Q]],
    ['grep with no match', ['grep', 'no-such-text-anywhere', 'examples']],
    ['rank', ['rank', '--query', Q, 'examples/logging.py', 'examples/playground-rate_limiter.ts']],
    ['prune --help', ['prune', '--help']],
    ['a usage error', ['prune', '--ratio', '0', 'examples/logging.py']],
    ['a missing file', ['cat', 'examples/none.py', '--focus', Q]],
  ];
  for (const [what, args, input] of cases) {
    it(`${what}: the same output and exit code`, async () => {
      const a = bundled(args, input);
      const b = await modules(args, input);
      const json = (s: string) => s.replace(/"ms":[0-9.e-]+/g, '"ms":0');
      expect(json(a.out)).toBe(json(b.out));
      expect(a.err).toBe(b.err);
      expect(a.code).toBe(b.code);
    });
  }

  it('the code cache was made for this bundle', () => {
    const cache = readFileSync(path.join(ROOT, 'dist/skim-read.cjs.cache'));
    expect(cache.toString('latin1', 0, 18)).toBe('skim-code-cache-1\n');
    expect(cache.length).toBeGreaterThan(100_000);
  });
});
