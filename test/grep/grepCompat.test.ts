/**
 * `skim grep` as a drop-in for GNU grep: for a matrix of patterns and options, over a copy of real
 * source files, the output of `skim grep` (no --focus, run in-process) is the output of
 * /usr/bin/grep, and so is the exit status. A single file's output must match line for line;
 * in a recursive search GNU grep walks directories in readdir order and skim in sorted order, so
 * there the lines are compared per file, in order, and the "--" separators by count.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGrepCommand } from '../../src/grep/command.js';

const ROOT = path.resolve(__dirname, '../..');
const GREP = '/usr/bin/grep';
const isGnuGrep = existsSync(GREP) && /GNU grep/.test(spawnSync(GREP, ['--version'], { encoding: 'utf8' }).stdout ?? '');

let TREE = '';
let FILES: string[] = []; // every file below TREE, relative

beforeAll(() => {
  TREE = mkdtempSync(path.join(os.tmpdir(), 'skim-grepcompat-'));
  const copy = (from: string, to: string) => cpSync(path.join(ROOT, from), path.join(TREE, to), { recursive: true });
  copy('examples', 'examples');
  mkdirSync(path.join(TREE, 'src'));
  copy('src/tools', 'src/tools');
  copy('src/grep', 'src/grep');
  copy('src/cli/actions/catAction.ts', 'src/cli/catAction.ts');
  copy('src/cli/io.ts', 'src/cli/io.ts');
  copy('src/core/errors.ts', 'src/core/errors.ts');
  // What real trees also hold: a binary file, CRLF lines, no final newline, invalid UTF-8, an
  // empty file, a dotfile, non-ASCII text.
  mkdirSync(path.join(TREE, 'misc'));
  writeFileSync(
    path.join(TREE, 'misc/blob.bin'),
    Buffer.concat([Buffer.from('header import os\n'), Buffer.from([0, 1, 2, 0]), Buffer.from('\nclass Blob:\n')]),
  );
  writeFileSync(path.join(TREE, 'misc/crlf.py'), 'import os\r\nclass Win:\r\n    def run(self):\r\n        return os.name\r\n');
  writeFileSync(path.join(TREE, 'misc/nofinal.py'), 'def last():\n    return "no newline at the end"');
  writeFileSync(
    path.join(TREE, 'misc/latin1.txt'),
    Buffer.concat([Buffer.from('plain ascii line\ncaf'), Buffer.from([0xe9]), Buffer.from(' import line\nlast import line\n')]),
  );
  writeFileSync(path.join(TREE, 'misc/empty.txt'), '');
  writeFileSync(path.join(TREE, 'misc/.hidden.py'), 'class Hidden:\n    pass\n');
  writeFileSync(path.join(TREE, 'misc/unicode.txt'), 'naïve café résumé\nÉcole ÉCOLE école\nstraße STRASSE\n日本語 text\n');
  // Symbolic links: grep -r follows only those named on the command line, -R all of them.
  symlinkSync('crlf.py', path.join(TREE, 'misc/link-to-crlf.py'));
  symlinkSync('../examples', path.join(TREE, 'misc/link-to-examples'));
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(p).isDirectory()) walk(p, r);
      else FILES.push(r);
    }
  };
  walk(TREE, '');
  FILES = FILES.sort((a, b) => b.length - a.length); // longest first: the first prefix found is the file
});
afterAll(() => rmSync(TREE, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function gnu(args: string[], input?: string): Run {
  const r = spawnSync(GREP, args, { cwd: TREE, input: input ?? '', encoding: 'utf8', env: { LC_ALL: 'C.UTF-8', PATH: process.env.PATH ?? '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function skim(args: string[], input?: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const status = await runGrepCommand(args, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readStdin: async () => Buffer.from(input ?? ''),
    stdinIsReadable: () => input !== undefined,
    cwd: TREE,
    env: {},
  });
  return { status, stdout, stderr };
}

/** stderr lines with the program name taken off ("skim grep" / "grep"), sorted. */
function messages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) =>
      l
        .replace(/^(?:skim grep|\/usr\/bin\/grep|grep): /, '')
        .replace(/'(?:skim )?grep --help'/, "'grep --help'")
        .replace(/^Usage: (?:skim )?grep /, 'Usage: grep '),
    )
    .sort();
}

/**
 * A recursive search's output, independent of the walk order: per file its lines in order, the
 * lines no file can be told for (-h) sorted, and the number of group separators.
 */
function byFile(out: string, separator = '--') {
  const groups = new Map<string, string[]>();
  let separators = 0;
  for (const line of out.split('\n')) {
    if (line === '') continue;
    if (line === separator) {
      separators++;
      continue;
    }
    const file = FILES.find((f) => line.startsWith(f) && [':', '-', '\0', undefined].includes(line[f.length])) ?? '';
    groups.set(file, [...(groups.get(file) ?? []), line]);
  }
  if (groups.has('')) groups.set('', groups.get('')!.sort());
  return { separators, files: [...groups.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)) };
}

/** How many comparisons ended in each exit status (the matrix must exercise all three). */
const statuses: Record<string, number> = {};

async function expectSame(args: string[], opts: { recursive?: boolean; input?: string; separator?: string } = {}) {
  const want = gnu(args, opts.input);
  statuses[String(want.status)] = (statuses[String(want.status)] ?? 0) + 1;
  const got = await skim(args, opts.input);
  const label = `grep ${args.map((a) => JSON.stringify(a)).join(' ')}`;
  expect(got.status, `${label}: exit status (stderr: ${got.stderr})`).toBe(want.status);
  if (opts.recursive) expect(byFile(got.stdout, opts.separator), label).toEqual(byFile(want.stdout, opts.separator));
  else expect(got.stdout, label).toBe(want.stdout);
  expect(messages(got.stderr), `${label}: messages`).toEqual(messages(want.stderr));
}

// Patterns in GNU grep's default syntax (BRE) and in each other dialect.
const BRE = [
  'def \\|class ', // alternation
  '\\(self\\|cls\\)\\.', // group
  'se\\{2,\\}', // interval
  'es\\+ion', // \+
  'colou\\?r', // \?
  '[[:upper:]][[:lower:]]\\+Error', // POSIX classes
  '^import', // anchor
  ')$',
  'if (', // bare ( is literal in BRE
  'a|b', // bare | is literal
  '{',
  '*',
  '[0-9]\\{2\\}',
  '\\<get',
  'records\\>',
  '^\\s*#',
  '\\w\\+(',
  '[^a-z ]let ',
  'TODO\\|FIXME\\|XXX',
  'caf. import',
  '.',
];
const ERE = ['def (get|set)_\\w+', 'import (type )?\\{', '[0-9]+\\.[0-9]+', '(^|[^a-z])if\\b', 'Error|Exception', 'a{2,}', '\\(', '^$'];
const FIXED = ['a.b', '(self', '$', 'import {', 'ÉCOLE'];
const PERL = ['\\bconst\\s+\\w+', '(?<=function )\\w+', '\\d{3,}', '(?i)class\\s+\\w+'];

const SINGLE = 'examples/logging.py';
const TS = 'src/tools/readCapped.ts';

describe.runIf(isGnuGrep)('skim grep matches GNU grep', () => {
  it('basic regular expressions on one file, with and without -n/-i/-w/-x/-v/-o/-c', async () => {
    for (const p of BRE) {
      for (const flags of [[], ['-n'], ['-i'], ['-w'], ['-x'], ['-v', '-c'], ['-o', '-n'], ['-c']]) {
        await expectSame([...flags, p, SINGLE]);
      }
    }
  });

  it('extended, fixed-string and Perl patterns', async () => {
    for (const p of ERE) for (const flags of [['-E'], ['-E', '-n', '-o'], ['-E', '-w', '-c'], ['-E', '-i', '-x']]) await expectSame([...flags, p, SINGLE]);
    for (const p of FIXED)
      for (const flags of [['-F'], ['-F', '-n', '-i'], ['-F', '-o'], ['-F', '-w']]) await expectSame([...flags, p, 'misc/unicode.txt', SINGLE, TS]);
    for (const p of PERL) for (const flags of [['-P'], ['-P', '-o', '-n'], ['-P', '-w', '-c']]) await expectSame([...flags, p, TS, SINGLE]);
  });

  it('several -e patterns and -f files', async () => {
    writeFileSync(path.join(TREE, '..', `${path.basename(TREE)}.patterns`), 'def get_records\nclass \n');
    const patternFile = path.join('..', `${path.basename(TREE)}.patterns`);
    await expectSame(['-n', '-e', 'def get_records', '-e', 'class Log', SINGLE]);
    await expectSame(['-E', '-e', 'a{3}', '-e', '(caplog|handler)\\.', '-o', SINGLE]);
    await expectSame(['-F', '-e', 'self.', '-e', 'return', '-c', SINGLE]);
    await expectSame(['-f', patternFile, '-n', SINGLE]);
    await expectSame(['-e', 'def get_records\nclass ', SINGLE]);
    await expectSame(['-e', '', '-c', SINGLE]);
    rmSync(path.join(TREE, '..', `${path.basename(TREE)}.patterns`));
  });

  it('context: -A, -B, -C, -NUM, group separators, -m with trailing context', async () => {
    for (const flags of [
      ['-n', '-A', '2'],
      ['-n', '-B', '1'],
      ['-C', '3'],
      ['-n', '-2'],
      ['-n', '-C', '0'],
      ['-nA1', '-B3'],
      ['-n', '-C', '1', '--group-separator=***'],
      ['-n', '-C', '1', '--no-group-separator'],
      ['-n', '-m', '2'],
      ['-n', '-m', '1', '-A', '3'],
      ['-n', '-m', '2', '-A', '40'],
      ['-c', '-m', '3'],
      ['-n', '-v', '-A', '1'],
      ['-o', '-n', '-C', '2'],
      ['-o', '-v', '-n', '-C', '1'],
      ['-nb', '-C', '1'],
    ]) {
      await expectSame([...flags, 'def \\|return \\[\\]', SINGLE]);
    }
    await expectSame(['-n', '-C', '2', 'import', SINGLE, 'misc/crlf.py', 'misc/nofinal.py', TS]);
  });

  it('file names: -H, -h, -l, -L, -c, -Z, -q, --label and several files', async () => {
    const files = [SINGLE, TS, 'misc/crlf.py', 'misc/empty.txt', 'misc/nofinal.py'];
    for (const flags of [
      [],
      ['-n'],
      ['-h'],
      ['-H', '-c'],
      ['-l'],
      ['-L'],
      ['-c'],
      ['-lv'],
      ['-L', '-v'],
      ['-l', '-Z'],
      ['-c', '-Z'],
      ['-q'],
      ['-H'],
      ['-h', '-H'],
      ['-l', '-c'],
      ['-b'],
    ]) {
      await expectSame([...flags, 'import', ...files]);
      await expectSame([...flags, 'no_such_token_anywhere', ...files]);
    }
    await expectSame(['-H', 'def', 'misc/nofinal.py']);
    await expectSame(['-n', 'import', '-'], { input: 'import a\nb\nimport c\n' });
    await expectSame(['--label=IN', '-H', 'import'], { input: 'import a\n' });
    await expectSame(['-c', 'x'], { input: 'x\ny\nx' });
  });

  it('recursive search with --include, --exclude, --exclude-dir', async () => {
    for (const flags of [
      ['-r'],
      ['-rn'],
      ['-rc'],
      ['-rl'],
      ['-rL'],
      ['-rh'],
      ['-rn', '--include=*.py'],
      ['-rn', '--include=*.ts', '--include=*.go'],
      ['-rl', '--exclude=*.ts'],
      ['-rn', '--exclude-dir=tools'],
      ['-rn', '--exclude-dir=src', '--include=*.py'],
      ['-rl', '--include=*.py', '--exclude=logging*'],
      ['-rl', '--exclude=logging*', '--include=*.py'],
      ['-rn', '-C', '1'],
      ['-rn', '-w', '-i'],
      ['-ro'],
      ['-R', '-n'],
    ]) {
      await expectSame([...flags, 'import', '.'], { recursive: true });
      await expectSame([...flags, 'class \\|def ', 'src', 'examples', 'misc'], { recursive: true });
    }
    await expectSame(['-rn', 'import'], { recursive: true }); // no operand: ".", names without "./"
    await expectSame(['-rl', '--exclude-dir=.*', 'import'], { recursive: true }); // "." is not excluded when not named
    await expectSame(['-rl', '--exclude-dir=.*', 'import', '.'], { recursive: true }); // ... but is when named
    await expectSame(['-rn', 'import', 'src/'], { recursive: true });
    await expectSame(['-r', '--include=*.py', 'import', SINGLE]);
    await expectSame(['-r', '--exclude-dir=src', 'import', 'src'], { recursive: true });
    await expectSame(['-rc', '--binary-files=without-match', 'import', 'misc'], { recursive: true });
    await expectSame(['-rn', '-a', 'import', 'misc/latin1.txt', 'misc/crlf.py']);
  });

  it('binary files, invalid UTF-8, CRLF and a missing final newline', async () => {
    await expectSame(['import', 'misc/blob.bin']);
    await expectSame(['-c', 'import', 'misc/blob.bin']);
    await expectSame(['-l', 'Blob', 'misc/blob.bin', 'misc/crlf.py']);
    await expectSame(['-n', 'import', 'misc/latin1.txt']);
    await expectSame(['-n', 'plain', 'misc/latin1.txt']);
    await expectSame(['-n', '-A', '1', 'plain', 'misc/latin1.txt']); // the context line is not UTF-8: left out
    await expectSame(['-n', '-C', '0', 'line', 'misc/latin1.txt']); // a selected line left out still ends its group
    await expectSame(['-nv', '-C', '0', 'zzz', 'misc/latin1.txt']); // ... but not inside a run of -v lines
    await expectSame(['-o', '-b', '.*', 'misc/latin1.txt']); // what matches around the bad byte is printed
    await expectSame(['-c', 'caf.', 'misc/latin1.txt']); // a byte that is not UTF-8 matches nothing, not even "."
    await expectSame(['-c', 'caf[^x]', 'misc/latin1.txt']);
    await expectSame(['-n', 'os.name$', 'misc/crlf.py']);
    await expectSame(['-n', 'Win:.$', 'misc/crlf.py']);
    await expectSame(['-n', 'end"$', 'misc/nofinal.py']);
    await expectSame(['-i', 'école', 'misc/unicode.txt']);
    await expectSame(['-o', '[[:alpha:]]*é[[:alpha:]]*', 'misc/unicode.txt']);
  });

  it('exit status 2 for errors, and 0 with -q when a line is selected anyway', async () => {
    await expectSame(['import', 'no/such/file', SINGLE]);
    await expectSame(['-s', 'import', 'no/such/file', SINGLE]);
    await expectSame(['-q', 'import', SINGLE, 'no/such/file']);
    await expectSame(['-q', 'zzz_no_such', SINGLE, 'no/such/file']);
    await expectSame(['\\(unbalanced', SINGLE]);
    await expectSame(['-E', '(unbalanced', SINGLE]);
    await expectSame(['[[:nope:]]', SINGLE]);
    await expectSame(['-E', '-F', 'x', SINGLE]);
    await expectSame(['--no-such-option', 'x', SINGLE]);
    await expectSame(['-A', 'x', 'import', SINGLE]);
    await expectSame(['-m', '0', 'import', SINGLE]);
    await expectSame([]);
  });

  // After every test of the matrix, in whatever order they ran: it compared hundreds of
  // invocations, ending in every exit status.
  afterAll(() => {
    expect(statuses['0']).toBeGreaterThan(200);
    expect(statuses['1']).toBeGreaterThan(30);
    expect(statuses['2']).toBeGreaterThan(5);
  });
});

describe('skim grep differs from GNU grep only where it says so', () => {
  it.runIf(isGnuGrep)('searches a directory operand as grep -r does, without -r', async () => {
    const want = gnu(['-rn', 'import', 'src']);
    const got = await skim(['-n', 'import', 'src']);
    expect(got.status).toBe(0);
    expect(byFile(got.stdout)).toEqual(byFile(want.stdout));
  });

  it('refuses back-references and lookahead with exit 2 and a reason', async () => {
    const br = await skim(['\\(a\\)\\1', SINGLE]);
    expect(br.status).toBe(2);
    expect(br.stderr).toMatch(/^skim grep: back-references .* not supported/);
    const la = await skim(['-P', 'a(?=b)', SINGLE]);
    expect(la.status).toBe(2);
    expect(la.stderr).toMatch(/lookahead assertions are not supported with -P/);
  });

  it('skips .git and node_modules met in a walk, but searches them when named', async () => {
    mkdirSync(path.join(TREE, 'walk/.git'), { recursive: true });
    mkdirSync(path.join(TREE, 'walk/node_modules/pkg'), { recursive: true });
    writeFileSync(path.join(TREE, 'walk/.git/config'), 'needle in git\n');
    writeFileSync(path.join(TREE, 'walk/node_modules/pkg/index.js'), 'needle in a dependency\n');
    writeFileSync(path.join(TREE, 'walk/app.js'), 'needle in the app\n');
    expect((await skim(['-r', 'needle', 'walk'])).stdout).toBe('walk/app.js:needle in the app\n');
    expect((await skim(['-r', 'needle', 'walk/node_modules'])).stdout).toBe('walk/node_modules/pkg/index.js:needle in a dependency\n');
    rmSync(path.join(TREE, 'walk'), { recursive: true });
  });
});
