/**
 * Golden outputs: each input shape (raw, cat -n, grep -n over several files, ==> headers, CRLF,
 * no final newline) and repair in each grammar language, pruned by the heuristic scorer (stable
 * across model retraining). Expected files live in test/fixtures/golden/expected/; regenerate
 * with `UPDATE_GOLDEN=1 npx vitest run test/core/golden.test.ts` and review the diff by eye.
 * Every golden also passes the invariant checks, and grammar-language outputs must parse.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPruner } from '../../src/core/prune.js';
import { checkSyntax } from '../../src/core/syntax/index.js';
import type { PruneRequest } from '../../src/core/types.js';
import { numberLines } from '../../src/tools/fileTools.js';
import { checkInvariants } from '../helpers/invariants.js';

const DIR = path.resolve(__dirname, '../fixtures/golden');
const pruner = createPruner({ scorer: 'heuristic' });
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const file = path.join(DIR, 'expected', name);
  if (update || !existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, actual);
    if (!update) throw new Error(`golden ${name} was missing and has been written: review it and rerun`);
    return;
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

const read = (f: string) => readFileSync(path.join(DIR, 'inputs', f), 'utf8');
const logging = readFileSync(path.resolve(__dirname, '../../examples/logging.py'), 'utf8');
const LOGGING_QUERY = 'caplog.get_records() is frozen after caplog.clear(): where are the records replaced instead of cleared?';

async function run(name: string, req: PruneRequest) {
  const r = await pruner.prune(req);
  expect(checkInvariants(req.code, r)).toBeNull();
  golden(name, r.text);
  return r;
}

describe('golden: input shapes', () => {
  it('raw file at ratio 4', async () => {
    const r = await run('shape-raw.py.txt', { code: logging, query: LOGGING_QUERY, path: 'src/_pytest/logging.py', ratio: 4 });
    expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / 4));
    expect((await checkSyntax(r.text, 'python')).ok).toBe(true);
  });

  it('cat -n output keeps its original numbers', async () => {
    const numbered = numberLines(logging, { offset: 300, limit: 200 });
    const r = await run('shape-numbered.txt', { code: numbered, query: LOGGING_QUERY, path: 'src/_pytest/logging.py', ratio: 3 });
    expect(r.shape).toBe('numbered');
    // markers name file line numbers (300-499), not positions in the output
    for (const m of r.text.matchAll(/omitted \((\d+)-(\d+)\)/g)) {
      expect(Number(m[1])).toBeGreaterThanOrEqual(300);
      expect(Number(m[2])).toBeLessThanOrEqual(499);
    }
  });

  it('grep -n output over several files keeps path:line: prefixes', async () => {
    const lines = logging.split('\n');
    const grep: string[] = [];
    lines.forEach((l, i) => {
      if (/records|clear/.test(l)) grep.push(`src/_pytest/logging.py:${i + 1}:${l}`);
    });
    const ts = read('typescript.ts').split('\n');
    ts.forEach((l, i) => {
      if (/value|raw/i.test(l)) grep.push(`src/jsx/base.ts:${i + 1}:${l}`);
    });
    const code = grep.join('\n') + '\n';
    const r = await run('shape-grep.txt', { code, query: LOGGING_QUERY, ratio: 3 });
    expect(r.shape).toBe('grep');
    for (const line of r.text.split('\n').filter(Boolean))
      expect(line).toMatch(/^(src\/_pytest\/logging\.py:\d+:|src\/jsx\/base\.ts:\d+:|\.\.\. \d+ lines? omitted(, \d+ match(es)?)? \()/);
  });

  it('several files with ==> headers', async () => {
    const code = `==> src/_pytest/logging.py <==\n${logging}\n==> src/jsx/base.ts <==\n${read('typescript.ts')}`;
    const r = await run('shape-multi.txt', { code, query: LOGGING_QUERY, ratio: 4 });
    expect(r.shape).toBe('multi');
    expect(r.text).toContain('==> src/_pytest/logging.py <==');
    expect(r.text).toContain('==> src/jsx/base.ts <==');
  });

  it('CRLF line endings and a missing final newline are preserved', async () => {
    const code = logging.replace(/\n/g, '\r\n').replace(/\r\n$/, '');
    const r = await run('shape-crlf.txt', { code, query: LOGGING_QUERY, ratio: 4 });
    expect(r.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(r.text.endsWith('\n')).toBe(false);
  });
});

interface LangCase {
  file: string;
  lang: string;
  query: string;
}
const langCases = JSON.parse(read('cases.json')) as LangCase[];

describe('golden: repair in each grammar language', () => {
  for (const c of langCases) {
    it(`${c.lang}: pruned output keeps headers/closers and parses`, async () => {
      const code = read(c.file);
      const small = code.split('\n').length < 60;
      const name = path.basename(c.file);
      const r = await run(`repair-${c.lang}${path.extname(name)}.txt`, { code, query: c.query, path: name, ratio: small ? 2 : 4 });
      expect(r.omitted.length).toBeGreaterThan(0);
      const input = await checkSyntax(code, c.lang);
      if (input.hasGrammar && input.ok) expect((await checkSyntax(r.text, c.lang)).ok).toBe(true);
    });
  }
});
