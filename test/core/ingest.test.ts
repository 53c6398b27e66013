import { describe, expect, it } from 'vitest';
import { ingest, splitLines } from '../../src/core/ingest/ingest.js';

const detect = (path: string | undefined) => (path?.endsWith('.py') ? 'python' : path?.endsWith('.ts') ? 'typescript' : 'text');

describe('splitLines', () => {
  it('keeps CRLF, LF and a missing final newline', () => {
    const r = splitLines('a\r\nb\nc');
    expect(r.lines).toEqual([
      { text: 'a', eol: '\r\n' },
      { text: 'b', eol: '\n' },
      { text: 'c', eol: '' },
    ]);
    expect(r.finalNewline).toBe(false);
  });
});

describe('ingest', () => {
  it('reads a raw file as one contiguous segment numbered from 1', () => {
    const doc = ingest('import os\n\ndef f():\n    return os.sep\n', { path: 'a.py', detectLanguage: detect });
    expect(doc.shape).toBe('raw');
    expect(doc.segments).toHaveLength(1);
    expect(doc.segments[0].language).toBe('python');
    expect(doc.lines.map((l) => l.lineNo)).toEqual([1, 2, 3, 4]);
    expect(doc.lines.every((l) => l.prefix === '')).toBe(true);
  });

  it('reads cat -n output with its original numbers and verbatim prefixes', () => {
    const code = '    74\tclass URLValidator(RegexValidator):\n    75\t    ul = 1\n    76\t\n    77\t    def f(self):\n';
    const doc = ingest(code, { detectLanguage: detect });
    expect(doc.shape).toBe('numbered');
    expect(doc.lines.map((l) => l.lineNo)).toEqual([74, 75, 76, 77]);
    expect(doc.lines[0].prefix).toBe('    74\t');
    expect(doc.lines[0].text).toBe('class URLValidator(RegexValidator):');
    expect(doc.lines[2].text).toBe('');
  });

  it('reads grep -n output over several files, with context lines and separators', () => {
    const code = [
      'src/a-b.py-11-import os',
      'src/a-b.py:12:def proxy_for(url):',
      'src/a-b.py-13-    return None',
      '--',
      'lib/c.ts:40:export function proxyFor(u: string) {',
      '',
    ].join('\n');
    const doc = ingest(code, { detectLanguage: detect });
    expect(doc.shape).toBe('grep');
    expect(doc.segments.map((s) => s.path)).toEqual(['src/a-b.py', 'lib/c.ts']);
    expect(doc.segments.map((s) => s.language)).toEqual(['python', 'typescript']);
    expect(doc.lines[0]).toMatchObject({ prefix: 'src/a-b.py-11-', text: 'import os', lineNo: 11, isMatch: false, segment: 0 });
    expect(doc.lines[1]).toMatchObject({ prefix: 'src/a-b.py:12:', lineNo: 12, isMatch: true });
    expect(doc.lines[3]).toMatchObject({ text: '--', segment: -1, lineNo: null });
    expect(doc.lines[4]).toMatchObject({ prefix: 'lib/c.ts:40:', lineNo: 40, segment: 1 });
  });

  it('reads several files with ==> headers into one segment each', () => {
    const code = '==> a.py <==\nx = 1\ny = 2\n\n==> b.ts <==\nconst z = 3;\n';
    const doc = ingest(code, { detectLanguage: detect });
    expect(doc.shape).toBe('multi');
    expect(doc.segments.map((s) => [s.path, s.language, s.lines.length])).toEqual([
      ['a.py', 'python', 2],
      ['b.ts', 'typescript', 1],
    ]);
    expect(doc.lines.filter((l) => l.segment === -1).map((l) => l.text)).toEqual(['==> a.py <==', '', '==> b.ts <==']);
    expect(doc.lines[5]).toMatchObject({ text: 'const z = 3;', lineNo: 1 });
  });

  it('does not mistake code with colons for grep output', () => {
    const doc = ingest('x = {\n  a: 1,\n  b: 2,\n}\nurl = "http://h:80/"\n', { path: 'a.py', detectLanguage: detect });
    expect(doc.shape).toBe('raw');
  });

  // a pylint functional-test expectation file: every line looks like grep output
  const PYLINT_EXPECTED = [
    'unused-import:3:0:3:9::Unused import os:UNDEFINED',
    "unused-variable:12:4:12:9:f:Unused variable 'value':UNDEFINED",
    'line-too-long:20:0:None:None::Line too long (120/100):UNDEFINED',
  ].join('\n');

  it('a file named by its path is that file: lines naming other files are its text', () => {
    const doc = ingest(`${PYLINT_EXPECTED}\n`, { path: 'tests/functional/u/unused.txt', detectLanguage: detect });
    expect(doc.shape).toBe('raw');
    expect(doc.lines.map((l) => [l.prefix, l.lineNo])).toEqual([
      ['', 1],
      ['', 2],
      ['', 3],
    ]);
    // grep output of that one file, with or without its name, is still grep
    const own = ingest('3:import os\n12:    value = 1\n', { path: 'a.py', detectLanguage: detect });
    expect(own.shape).toBe('grep');
    expect(own.segments[0].path).toBe('a.py');
    expect(ingest('a.py:3:import os\na.py:12:    value = 1\n', { path: 'a.py', detectLanguage: detect }).shape).toBe('grep');
  });

  it('a raw window (firstLine) is raw whatever its lines look like, numbered from firstLine', () => {
    const doc = ingest(`${PYLINT_EXPECTED}\n`, { firstLine: 120, detectLanguage: detect });
    expect(doc.shape).toBe('raw');
    expect(doc.lines.map((l) => l.lineNo)).toEqual([120, 121, 122]);
  });

  it('grep output over files the caller names: a file named a:5:b.py is that file', () => {
    const code = 'src/a:5:b.py:3:x = 1\nsrc/a:5:b.py-4-y = 2\nsrc/c.py:7:z = 3\n';
    const doc = ingest(code, { grepFiles: ['src/a:5:b.py', 'src/c.py'], detectLanguage: detect });
    expect(doc.shape).toBe('grep');
    expect(doc.segments.map((s) => s.path)).toEqual(['src/a:5:b.py', 'src/c.py']);
    expect(doc.lines.map((l) => [l.lineNo, l.text, l.isMatch])).toEqual([
      [3, 'x = 1', true],
      [4, 'y = 2', false],
      [7, 'z = 3', true],
    ]);
  });

  it("grep -n -C output of one file: a context line holding `:42:` is that file's line, not a path", () => {
    // fmt's test/format-test.cc under `grep -n -C 1 EXPECT_EQ test/format-test.cc`
    const code = [
      '1430:  EXPECT_EQ("42", fmt::format("{}", 42));',
      '1431-  EXPECT_EQ("1.2340000000:0042:+3.13:str:0x3e8:X:%",',
      '1432:  EXPECT_EQ("x", fmt::format("{}", \'x\'));',
      '',
    ].join('\n');
    const doc = ingest(code, { detectLanguage: detect });
    expect(doc.shape).toBe('grep');
    expect(doc.segments.map((s) => s.path)).toEqual([undefined]);
    expect(doc.lines.map((l) => [l.prefix, l.lineNo, l.isMatch, l.segment])).toEqual([
      ['1430:', 1430, true, 0],
      ['1431-', 1431, false, 0],
      ['1432:', 1432, true, 0],
    ]);
  });

  it('grep -n -C output of one file that starts with such a context line reads it the same', () => {
    const code = ['1429-  EXPECT_EQ("1.23:0042:x", fmt(a));', '1430-  foo();', '1431:  bar(1.23);', '1432:  baz(4.56);', ''].join('\n');
    const doc = ingest(code, { detectLanguage: detect });
    expect(doc.shape).toBe('grep');
    expect(doc.lines.map((l) => [l.prefix, l.lineNo, l.isMatch, l.segment])).toEqual([
      ['1429-', 1429, false, 0],
      ['1430-', 1430, false, 0],
      ['1431:', 1431, true, 0],
      ['1432:', 1432, true, 0],
    ]);
  });
});
