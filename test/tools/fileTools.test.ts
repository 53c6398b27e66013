/** The rules every file tool follows: one decoding policy, one binary check, numbering like cat -n, listings through the one walk. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeInput, isBinary, lineWindow, listFiles, NOT_UTF8_WARNING, numberLines, readTextFile } from '../../src/tools/fileTools.js';

describe('decodeInput', () => {
  it('reads valid UTF-8 as UTF-8, a byte order mark kept', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('caf\u00e9\n')]);
    expect(decodeInput(bom)).toEqual({ text: '\ufeffcaf\u00e9\n', encoding: 'utf8' });
  });

  it('reads anything else as Latin-1 with a warning, so its bytes come back exactly', () => {
    const bytes = Buffer.from([...Buffer.from('x = "caf'), 0xe9, ...Buffer.from('"\n'), 0xff, 0xfe]);
    const d = decodeInput(bytes);
    expect(d.encoding).toBe('latin1');
    expect(d.warning).toBe(NOT_UTF8_WARNING);
    expect(Buffer.from(d.text, d.encoding).equals(bytes)).toBe(true);
    expect(decodeInput(bytes.subarray(0, 9)).text).toBe('x = "caf\u00e9');
  });
});

describe('isBinary', () => {
  it('is a NUL byte anywhere', () => {
    expect(isBinary(Buffer.from('text\n'))).toBe(false);
    expect(isBinary(Buffer.concat([Buffer.alloc(100_000, 0x61), Buffer.from([0])]))).toBe(true);
  });
});

describe('lineWindow', () => {
  it('is the lines from an offset, at most a limit of them, with the file lines they are and the total', () => {
    expect(lineWindow('a\r\nb\nc\n', { offset: 2, limit: 5 })).toEqual({ lines: ['b\n', 'c\n'], first: 2, last: 3, total: 3 });
    // a last line without a terminator is a line; past the end, nothing
    expect(lineWindow('a\nb', { offset: 1, limit: 1 })).toEqual({ lines: ['a\n'], first: 1, last: 1, total: 2 });
    expect(lineWindow('a\nb', { offset: 5 }).lines).toEqual([]);
  });
});

describe('numberLines', () => {
  it('numbers like cat -n, from an offset, keeping line terminators', () => {
    expect(numberLines('a\r\nb\nc')).toBe('     1\ta\r\n     2\tb\n     3\tc');
    expect(numberLines('a\nb\nc\n', { offset: 2, limit: 1 })).toBe('     2\tb\n');
  });
});

describe('listFiles and readTextFile', () => {
  it('list regular files through the walk (its skip list), glob-filtered; named files as given', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'skim-files-'));
    mkdirSync(path.join(root, 'node_modules'));
    mkdirSync(path.join(root, 'src'));
    writeFileSync(path.join(root, 'node_modules', 'x.py'), 'x\n');
    writeFileSync(path.join(root, 'src', 'a.py'), 'a\n');
    writeFileSync(path.join(root, 'src', 'b.ts'), 'b\n');
    expect(await listFiles([root])).toEqual([path.join(root, 'src', 'a.py'), path.join(root, 'src', 'b.ts')]);
    expect(await listFiles([root], '*.py')).toEqual([path.join(root, 'src', 'a.py')]);
    expect(await listFiles([path.join(root, 'node_modules', 'x.py')], '*.ts')).toEqual([path.join(root, 'node_modules', 'x.py')]);
    await expect(listFiles([path.join(root, 'missing')])).rejects.toMatchObject({ code: 'ENOINPUT' });
    expect(await readTextFile(path.join(root, 'src', 'a.py'))).toEqual({ text: 'a\n', encoding: 'utf8' });
    await expect(readTextFile(root)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});
