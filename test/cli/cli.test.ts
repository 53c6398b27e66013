/**
 * The `skim` command as a user runs it: exit codes, stdout for content only, one-line errors
 * (never a stack trace) for bad input, fail-open for content problems.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runSkim } from '../helpers/cli.js';

const EXAMPLE = path.join(ROOT, 'examples/logging.py');
const QUERY = 'Where are the caplog records replaced instead of cleared?';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'skim-cli-'));

/** The command in-process (the pipe habits below run the built binary). */
const skim = (args: string[], input?: string | Buffer) => runSkim(args, { input });

function noStack(stderr: string) {
  expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(stderr.trim().split('\n').length).toBeLessThanOrEqual(3);
}

describe('skim prune', () => {
  it('prunes a real file within the budget and prints only code', async () => {
    const r = await skim(['prune', EXAMPLE, '--query', QUERY, '--ratio', '4']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/# \.\.\. \d+ lines omitted \(\d+-\d+\)/);
    expect(r.stdout).toContain('def get_records');
  });

  it('--json prints exactly one object with the documented fields', async () => {
    const r = await skim(['prune', EXAMPLE, '--query', QUERY, '--ratio', '8', '--json']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0]);
    for (const k of ['text', 'kept', 'omitted', 'score', 'tokensIn', 'tokensOut', 'language', 'ms']) expect(o).toHaveProperty(k);
    expect(o.language).toBe('python');
    expect(o.tokensOut).toBeLessThanOrEqual(Math.floor(o.tokensIn / 8));
  });

  it('reads stdin with -', async () => {
    const r = await skim(['prune', '-', '--query', QUERY, '--tokens', '800', '--language', 'py'], readFileSync(EXAMPLE));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('omitted');
  });

  it('--explain shows a score gutter', async () => {
    const r = await skim(['prune', EXAMPLE, '--query', QUERY, '--ratio', '4', '--explain']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^(\d\.\d{3} {2}|\d\.\d{2}e-\d|0 {6}) .+ [K-] /m);
    expect(r.stdout).toMatch(/budget mode \(best scores first\)/);
    // Threshold mode names the τ the scores are compared with, in the gutter's own format.
    const t = await skim(['prune', EXAMPLE, '--query', QUERY, '--explain']);
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/; threshold (\d\.\d{3}|\d\.\d{2}e-\d) \(lines scoring below it are dropped\);/);
    const json = JSON.parse((await skim(['prune', EXAMPLE, '--query', QUERY, '--json'])).stdout);
    expect(json.threshold).toBeGreaterThan(0);
  });

  it('formats gutter scores in a fixed column, small ones in exponent form', async () => {
    const { formatScore } = await import('../../src/cli/actions/pruneAction.js');
    expect(formatScore(0.7123)).toBe('0.712  ');
    expect(formatScore(0.00254)).toBe('2.54e-3');
    expect(formatScore(0.01)).toBe('0.010  ');
    expect(formatScore(0)).toBe('0      ');
  });

  it('--batch streams one result per request with the id echoed', async () => {
    const batch = path.join(tmp, 'batch.jsonl');
    writeFileSync(
      batch,
      [
        JSON.stringify({ id: 'a', path: EXAMPLE, query: QUERY, ratio: 4 }),
        JSON.stringify({ id: 'b', code: 'x = 1\n', query: 'x' }),
        'not json',
        JSON.stringify({ id: 'c', path: path.join(tmp, 'missing.py'), query: 'q' }),
      ].join('\n'),
    );
    const r = await skim(['prune', '--batch', batch]);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.id)).toEqual(['a', 'b', null, 'c']);
    expect(out[0].tokensOut).toBeLessThanOrEqual(Math.floor(out[0].tokensIn / 4));
    expect(out[1].text).toBe('x = 1\n');
    expect(out[2].error).toMatch(/not valid JSON/);
    expect(out[3].error).toMatch(/no such file/);
    expect(r.status).toBe(1);
  });
});

describe('bad input', () => {
  it('missing path: one line, exit 66', async () => {
    const r = await skim(['prune', path.join(tmp, 'nope.py'), '--query', 'q']);
    expect(r.status).toBe(66);
    expect(r.stderr).toMatch(/^skim: no such file/);
    noStack(r.stderr);
  });

  it('a directory: one line, exit 66', async () => {
    const r = await skim(['prune', tmp, '--query', 'q']);
    expect(r.status).toBe(66);
    expect(r.stderr).toMatch(/is a directory/);
    noStack(r.stderr);
  });

  it('bad option values: usage error, exit 64', async () => {
    const r = await skim(['prune', EXAMPLE, '--query', 'q', '--ratio', 'zero']);
    expect(r.status).toBe(64);
    noStack(r.stderr);
    expect((await skim(['prune', EXAMPLE, '--ratio', '4', '--tokens', '5'])).status).toBe(64);
  });

  it('binary file fails open: original bytes out, warning on stderr', async () => {
    const bin = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0, 10, 65, 66, 10]);
    const f = path.join(tmp, 'a.bin');
    writeFileSync(f, bin);
    const r = await skim(['prune', f, '--query', 'q', '--ratio', '4']);
    expect(r.status).toBe(0);
    expect(Buffer.compare(r.raw, bin)).toBe(0);
    expect(r.stderr).toMatch(/binary/);
  });

  it('invalid UTF-8 fails open with the original bytes', async () => {
    const bad = Buffer.concat([Buffer.from('def f():\n    return "'), Buffer.from([0xff, 0xfe]), Buffer.from('"\n')]);
    const f = path.join(tmp, 'bad.py');
    writeFileSync(f, bad);
    const r = await skim(['prune', f, '--query', 'q']);
    expect(r.status).toBe(0);
    expect(Buffer.compare(r.raw, bad)).toBe(0);
    expect(r.stderr).toMatch(/UTF-8/);
  });

  it('empty file: empty output, exit 0', async () => {
    const f = path.join(tmp, 'empty.py');
    writeFileSync(f, '');
    const r = await skim(['prune', f, '--query', 'q', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).text).toBe('');
  });

  it('a 2 MB single line comes back whole', async () => {
    const f = path.join(tmp, 'long.js');
    const line = 'var a = "' + 'x'.repeat(2 * 1024 * 1024) + '";\n';
    writeFileSync(f, line);
    const r = await skim(['prune', f, '--query', 'where is a set']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(line);
  });

  it('a 200,000-line file is pruned, honestly', async () => {
    const f = path.join(tmp, 'huge.py');
    const body: string[] = [];
    for (let i = 0; i < 200_000; i++) body.push(i % 50 === 0 ? `def handler_${i}(request):` : `    value_${i} = compute(request, ${i})`);
    writeFileSync(f, body.join('\n') + '\n');
    const r = await skim(['prune', f, '--query', 'what does handler_1000 compute?', '--json']);
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout);
    const covered = [...o.kept, ...o.omitted].reduce((s: number, [a, b]: [number, number]) => s + b - a + 1, 0);
    expect(covered).toBe(200_000);
    expect(o.tokensOut).toBeLessThan(o.tokensIn);
  }, 120_000);

  it('unknown extension goes through the fallback', async () => {
    const f = path.join(tmp, 'notes.zzz');
    const lines = Array.from({ length: 120 }, (_, i) => (i === 60 ? 'the retry delay doubles each time' : `line ${i} of unrelated text here`));
    writeFileSync(f, lines.join('\n') + '\n');
    const r = await skim(['prune', f, '--query', 'how does the retry delay grow?', '--json']);
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o.language).toBe('text');
    expect(o.text).toContain('the retry delay doubles each time');
  });

  it('empty query returns the input unchanged; a 10 KB query works', async () => {
    const r1 = await skim(['prune', EXAMPLE, '--query', '']);
    expect(r1.status).toBe(0);
    expect(r1.stdout).toBe(readFileSync(EXAMPLE, 'utf8'));
    const r2 = await skim(['prune', EXAMPLE, '--query', 'caplog records clear '.repeat(500), '--ratio', '4', '--json']);
    expect(r2.status).toBe(0);
    expect(JSON.parse(r2.stdout).tokensOut).toBeGreaterThan(0);
  });
});

describe('skim cat and skim grep', () => {
  it('cat numbers like cat -n and prunes with --focus', async () => {
    const plain = await skim(['cat', EXAMPLE]);
    expect(plain.status).toBe(0);
    expect(plain.stdout.split('\n')[0]).toBe('     1\t"""Access and control log capturing."""');
    const pruned = await skim(['cat', EXAMPLE, '--focus', QUERY]);
    expect(pruned.status).toBe(0);
    expect(pruned.stdout.length).toBeLessThan(plain.stdout.length);
    expect(pruned.stdout).toMatch(/^\s+\d+\t/m);
  });

  it('cat says on stderr when the goal hint matches the file only weakly, with what to do', async () => {
    const r = await skim(['cat', EXAMPLE, '--focus', 'Which function parses the YAML file?']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(
      /weak match: the best line scores [\d.]+x the threshold against the goal hint \(a long read, \d+ characters\); .*read the range you need/,
    );
  });

  it('cat of a missing file: message on stderr, exit 1, others still printed', async () => {
    const r = await skim(['cat', path.join(tmp, 'nope.py'), EXAMPLE]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no such file/);
    expect(r.stdout).toContain('==> ');
  });

  it('grep prints like grep (path:text, path:line:text with -n), exits 1 on none and 2 on a bad pattern', async () => {
    const r = await skim(['grep', 'def get_records', 'examples']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^examples\/logging\.py:\s+def get_records/m);
    const n = await skim(['grep', '-n', 'def get_records', 'examples']);
    expect(n.stdout).toMatch(/^examples\/logging\.py:\d+:\s+def get_records/m);
    expect((await skim(['grep', 'no_such_token_anywhere_xyz', 'examples'])).status).toBe(1);
    const bad = await skim(['grep', '\\(unclosed', 'examples']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('skim grep: Unmatched ( or \\(\n');
    noStack(bad.stderr);
  });

  it("grep takes basic regular expressions (\\| alternation), the dialects and grep's options in-process", async () => {
    const r = await skim(['grep', '-c', 'def get_records\\|def clear', EXAMPLE]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('2\n');
    expect((await skim(['grep', '-E', '-l', 'def (get_records|clear)', 'examples'])).stdout).toBe('examples/logging.py\n');
    expect((await skim(['grep', '-F', '-x', '-c', 'import io', EXAMPLE])).stdout).toBe('1\n');
    expect((await skim(['grep', '-rn', '--include=*.go', '-w', 'func', 'examples'])).stdout).toMatch(/^examples\/playground-lru_cache\.go:\d+:func /m);
    const br = await skim(['grep', '\\(a\\)\\1', EXAMPLE]);
    expect(br.status).toBe(2);
    expect(br.stderr).toMatch(/^skim grep: back-references .* not supported/);
    const unknown = await skim(['grep', '--no-such-option', 'x', EXAMPLE]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unrecognized option '--no-such-option'\nUsage: skim grep/);
  });

  it('grep --glob filters files and follows no symlinked directory loops', async () => {
    const d = mkdtempSync(path.join(tmp, 'g-'));
    writeFileSync(path.join(d, 'a.py'), 'token_here = 1\n');
    writeFileSync(path.join(d, 'b.txt'), 'token_here = 2\n');
    symlinkSync(d, path.join(d, 'loop'));
    const r = await skim(['grep', 'token_here', d, '--glob', '*.py']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${d}/a.py:token_here = 1\n`);
    expect(r.stdout).not.toContain('b.txt');
  });
});

describe('pipes and grep habits', () => {
  it('stops quietly when the reader of stdout goes away (skim cat | head -1)', async () => {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" cat examples/logging.py examples/logging.py examples/logging.py | head -1`], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.stdout.split('\n')[0]).toBe('==> examples/logging.py <==');
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });

  it('skim grep accepts -n, -r, -R and -rn as grep does', async () => {
    for (const flags of [['-n', '-R'], ['-rn'], ['-r'], []]) {
      const r = await skim(['grep', ...flags, 'def get_records', 'examples']);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(flags.join('').includes('n') ? /logging\.py:\d+:\s+def get_records/ : /logging\.py:\s+def get_records/);
    }
  });

  it('skim grep reads a pipe when no file is given, as grep does', async () => {
    const r = spawnSync('sh', ['-c', `printf 'a\\nneedle\\n' | "${process.execPath}" "${BIN}" grep -n needle`], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('2:needle\n');
  });
});

describe('--json on numbered input', () => {
  it("adds per-file ranges in the file's own line numbers, matching the markers", async () => {
    const lines = readFileSync(EXAMPLE, 'utf8').split('\n').slice(299, 460);
    const numbered = lines.map((l, i) => `${String(300 + i).padStart(6)}\t${l}`).join('\n') + '\n';
    const r = await skim(['prune', '-', '--query', QUERY, '--ratio', '3', '--json'], Buffer.from(numbered));
    expect(r.status).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o.files).toHaveLength(1);
    const { kept, omitted } = o.files[0] as { kept: [number, number][]; omitted: [number, number][] };
    // together they cover 300..460 exactly, in the file's numbers
    const all = [...kept, ...omitted].sort((a, b) => a[0] - b[0]);
    expect(all[0][0]).toBe(300);
    expect(all[all.length - 1][1]).toBe(460);
    for (let k = 1; k < all.length; k++) expect(all[k][0]).toBe(all[k - 1][1] + 1);
    // every marker names one of the omitted ranges
    for (const m of o.text.matchAll(/omitted \((\d+)-(\d+)\)/g)) expect(omitted).toContainEqual([Number(m[1]), Number(m[2])]);
  });
});

describe('skim cat on a file that is not valid UTF-8', () => {
  it('passes its bytes through exactly, numbered like cat -n', async () => {
    const f = path.join(tmp, 'latin1.py');
    writeFileSync(f, Buffer.from([...Buffer.from('x = 1\n# caf'), 0xe9, ...Buffer.from('\ny = 2\n')]));
    const r = await skim(['cat', f]);
    expect(r.status).toBe(0);
    const expected = Buffer.concat([Buffer.from('     1\tx = 1\n     2\t# caf'), Buffer.from([0xe9]), Buffer.from('\n     3\ty = 2\n')]);
    expect(Buffer.compare(r.raw, expected)).toBe(0);
  });
});
