/**
 * Every command's exit code for the three kinds of misuse (a missing file, an unknown option, a
 * bad option value), against the exit-code table in docs/cli.md: each code a command exits with is
 * in the table, and the table's meaning is what happened.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runSkim } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-exit-'));
const MISSING = path.join(tmp, 'no-such-file');
const OUT = path.join(tmp, 'out.jsonl');
const EXAMPLE = path.join(ROOT, 'examples/logging.py');
/** Nothing listens there: a command that got as far as calling it would fail otherwise. */
const ENDPOINT = 'http://127.0.0.1:9/v1';

/** The command in-process, stdin /dev/null, no session or task from the environment. */
const skim = (args: string[]) => runSkim(args, { stdin: 'none', env: { SKIM_SESSION: '', SKIM_TASK: '' } });

/** The exit-code table of docs/cli.md: code -> meaning. */
function readmeExitCodes(): Map<number, string> {
  const readme = readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8');
  const table = readme.slice(readme.indexOf('| exit code | meaning |'));
  const rows = new Map<number, string>();
  for (const line of table.split('\n').slice(2)) {
    const m = /^\| (\d+) \| (.+) \|$/.exec(line);
    if (!m) break;
    rows.set(Number(m[1]), m[2]);
  }
  return rows;
}

interface Case {
  command: string;
  missingFile: string[];
  badOption: string[];
  badValue: string[];
  /** Exit codes of the three cases, when not 66, 64, 64. */
  codes?: [number, number, number];
}

const CASES: Case[] = [
  {
    command: 'prune',
    missingFile: ['prune', MISSING, '--query', 'q'],
    badOption: ['prune', EXAMPLE, '--no-such-option'],
    badValue: ['prune', EXAMPLE, '--ratio', 'abc'],
  },
  {
    command: 'prune --batch',
    missingFile: ['prune', '--batch', MISSING],
    badOption: ['prune', '--batch', MISSING, '--no-such-option'],
    badValue: ['prune', '--batch', MISSING, '--threshold', '2'],
  },
  // cat keeps going over the other files and exits 1, as cat does; grep exits 2 for any trouble, as grep does
  {
    command: 'cat',
    missingFile: ['cat', MISSING],
    badOption: ['cat', EXAMPLE, '--no-such-option'],
    badValue: ['cat', EXAMPLE, '--tokens', '-1'],
    codes: [1, 64, 64],
  },
  {
    command: 'grep',
    missingFile: ['grep', 'def', MISSING],
    badOption: ['grep', '--no-such-option', 'def', EXAMPLE],
    badValue: ['grep', '--ratio', '0.5', 'def', EXAMPLE],
    codes: [2, 2, 2],
  },
  {
    command: 'rank',
    missingFile: ['rank', '--query', 'q', MISSING],
    badOption: ['rank', '--query', 'q', EXAMPLE, '--no-such-option'],
    badValue: ['rank', '--query', 'q', EXAMPLE, '--top', '0'],
  },
  // run exits with the command's status; one that cannot be found is 127, as in a shell
  {
    command: 'run',
    missingFile: ['run', '--', MISSING],
    badOption: ['run', '--no-such-option', '--', 'true'],
    badValue: ['run', '--timeout', 'abc', '--', 'true'],
    codes: [127, 64, 64],
  },
  {
    command: 'serve',
    missingFile: ['serve', '--port', '0', '--model', MISSING],
    badOption: ['serve', '--no-such-option'],
    badValue: ['serve', '--port', 'abc'],
  },
  {
    command: 'mcp',
    missingFile: ['mcp', '--root', MISSING],
    badOption: ['mcp', '--no-such-option'],
    badValue: ['mcp', '--root', tmp, '--scorer', 'no-such-scorer'],
  },
  {
    command: 'bench',
    missingFile: ['bench', '--cases', MISSING],
    badOption: ['bench', '--cases', MISSING, '--no-such-option'],
    badValue: ['bench', '--cases', MISSING, '--limit', '0'],
  },
  {
    command: 'train',
    missingFile: ['train', '--data', MISSING, '--out', tmp],
    badOption: ['train', '--data', MISSING, '--out', tmp, '--no-such-option'],
    badValue: ['train', '--data', MISSING, '--out', tmp, '--distractor-weight', 'abc'],
  },
  {
    command: 'model-eval',
    missingFile: ['model-eval', '--commits', MISSING],
    badOption: ['model-eval', '--no-such-option'],
    badValue: ['model-eval', '--limit', '0'],
  },
  {
    command: 'data mine',
    missingFile: ['data', 'mine', '--repo', MISSING, '--out', OUT],
    badOption: ['data', 'mine', '--repo', MISSING, '--out', OUT, '--no-such-option'],
    badValue: ['data', 'mine', '--repo', MISSING, '--out', OUT, '--max', '0'],
  },
  {
    command: 'data synth',
    missingFile: ['data', 'synth', '--corpus', MISSING, '--endpoint', ENDPOINT, '--model', 'm', '--out', OUT],
    badOption: ['data', 'synth', '--corpus', MISSING, '--endpoint', ENDPOINT, '--model', 'm', '--out', OUT, '--no-such-option'],
    badValue: ['data', 'synth', '--corpus', MISSING, '--endpoint', ENDPOINT, '--model', 'm', '--out', OUT, '--concurrency', 'many'],
  },
  {
    command: 'adapt',
    missingFile: ['adapt', '--repo', MISSING],
    badOption: ['adapt', '--repo', MISSING, '--no-such-option'],
    badValue: ['adapt', '--repo', MISSING, '--max', '1.5'],
  },
];

describe('exit codes (docs/cli.md table)', () => {
  const table = readmeExitCodes();

  it('docs/cli.md has the table', () => {
    expect(table.get(0)).toMatch(/success/);
    expect(table.get(64)).toMatch(/usage error/);
    expect(table.get(66)).toMatch(/missing input/);
  });

  it.concurrent.each(CASES)('$command: a missing file, an unknown option, a bad value', async (c) => {
    const [missing, option, value] = await Promise.all([skim(c.missingFile), skim(c.badOption), skim(c.badValue)]);
    const [codeMissing, codeOption, codeValue] = c.codes ?? [66, 64, 64];
    expect([missing.status, option.status, value.status], `${missing.stderr}\n${option.stderr}\n${value.stderr}`).toEqual([codeMissing, codeOption, codeValue]);
    for (const r of [missing, option, value]) {
      // every code is in the table, and no user error reads as an internal one
      expect(table.has(r.status!), `exit ${r.status} is not in the table of docs/cli.md`).toBe(true);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at .+:\d+:\d+/);
    }
    expect(missing.stderr).toContain(MISSING);
    if (codeMissing === 1) expect(table.get(1)).toMatch(new RegExp(c.command));
    if (codeMissing === 2) expect(table.get(2)).toMatch(new RegExp(c.command));
  });
});
