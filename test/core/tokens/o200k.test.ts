/**
 * The binary o200k vocabulary and its counter against gpt-tokenizer itself: the shipped table is
 * what the build script makes from the installed gpt-tokenizer, and counts are equal on real code,
 * on the corner cases of its lookups (byte-order marks, lone surrogates, invalid UTF-8 as Latin-1)
 * and on random strings.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens as reference } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { asciiPreTokenEnd, countO200k, O200K_SPLIT, o200kTablePath } from '../../../src/core/tokens/o200k.js';
import { buildO200kTable, readO200kTable } from '../../../src/core/tokens/o200kTable.js';

const AS_TEXT = { disallowedSpecial: new Set<string>() };
const ref = (s: string) => reference(s, AS_TEXT);
const ROOT = path.resolve(__dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = path.join(dir, e);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

describe('o200k pre-token split', () => {
  it("of ASCII text (split by hand) is the regular expression's", () => {
    const byRegex = (s: string) => s.match(new RegExp(O200K_SPLIT.source, O200K_SPLIT.flags)) ?? [];
    const byHand = (s: string) => {
      const out: string[] = [];
      for (let i = 0; i < s.length; i = asciiPreTokenEnd(s, i)) out.push(s.slice(i, asciiPreTokenEnd(s, i)));
      return out;
    };
    const ascii = [...'aZbQ09 \t\n\r\v\f\'sSdDmMtTlLvVeErR/._-(){}:;#"\\\x00\x1c\x1f\x7f'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ascii, "'ll", "'ve", 'HTTPServer', '  ', '\r\n', ');\n//'), { maxLength: 30 }), (parts) => {
        const s = parts.join('');
        expect(byHand(s)).toEqual(byRegex(s));
        expect(countO200k(s)).toBe(ref(s));
      }),
      { numRuns: 5000, seed: 7 },
    );
    for (const f of files(path.join(ROOT, 'test/fixtures'))) {
      const t = readFileSync(f, 'latin1');
      if (!/[\u0080-\uffff]/.test(t)) expect(byHand(t), f).toEqual(byRegex(t));
    }
  });

  it("is gpt-tokenizer's O200K_TOKEN_SPLIT_REGEX", () => {
    expect(O200K_SPLIT.source).toBe(O200K_TOKEN_SPLIT_REGEX.source);
    expect(O200K_SPLIT.flags).toBe(O200K_TOKEN_SPLIT_REGEX.flags);
  });
});

describe('o200k table', () => {
  it('the shipped assets/o200k_base.bin is what scripts/build-o200k-table.ts builds from gpt-tokenizer', () => {
    const file = o200kTablePath();
    expect(file).toBe(path.join(ROOT, 'assets', 'o200k_base.bin'));
    const shipped = readFileSync(file!);
    const built = buildO200kTable(ranks as (string | number[])[]);
    expect(shipped.length).toBe(built.length);
    expect(Buffer.compare(shipped, Buffer.from(built))).toBe(0);
    expect(readO200kTable(shipped)).not.toBeNull();
  });

  it('refuses a file that is not a table', () => {
    expect(readO200kTable(new Uint8Array(16))).toBeNull();
    expect(readO200kTable(new Uint8Array(64))).toBeNull();
    const truncated = readFileSync(o200kTablePath()!).subarray(0, 100_000);
    expect(readO200kTable(truncated)).toBeNull();
  });
});

describe('countO200k equals gpt-tokenizer', () => {
  it('on the examples and golden inputs, whole and line by line', () => {
    const texts = [...files(path.join(ROOT, 'examples')), ...files(path.join(ROOT, 'test/fixtures/golden/inputs'))].map((f) => readFileSync(f, 'utf8'));
    expect(texts.length).toBeGreaterThan(5);
    for (const t of texts) {
      expect(countO200k(t)).toBe(ref(t));
      for (const line of t.split('\n')) expect(countO200k(`${line}\n`)).toBe(ref(`${line}\n`));
    }
  });

  it('on the corners of its lookups', () => {
    const cases = [
      '',
      ' ',
      '\n',
      '\r\n',
      '\t\t',
      ' '.repeat(300),
      '\n'.repeat(50),
      '<|endoftext|>',
      'x = "<|im_start|>system"\n',
      // byte-order marks: gpt-tokenizer's byte lookups decode with TextDecoder, which drops a leading BOM
      '\uFEFF',
      '\uFEFF\uFEFF',
      '\uFEFFnamespace',
      '\uFEFF#',
      '\uFEFF//',
      '\uFEFF\n',
      'a\uFEFFb',
      '\uFEFF출장안마',
      // lone surrogates (TextEncoder writes U+FFFD) and a pair split across pre-tokens
      '\uD800',
      '\uDC00',
      'a\uD800b',
      '\uD83D\uDE00',
      '😀😀😀',
      '\uD83D',
      '\uFFFD',
      'é',
      'e\u0301',
      '中文字符',
      'Ж',
      'ǅungla',
      '٣٤٥',
      'ﬁle',
      '\u00A0\u00A0',
      '\u200b',
      '\u2028',
      "don't",
      "DON'T",
      "it'LL",
      '12345678',
      '3.14159',
      '0x1F',
      '//\n//\n',
      ';\n/\n/\n',
      '  }\n}\n',
    ];
    for (const s of cases) expect(countO200k(s), JSON.stringify(s)).toBe(ref(s));
    // invalid UTF-8 read as Latin-1 (what skim does with such files), and as replacement characters
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(countO200k(bytes.toString('latin1'))).toBe(ref(bytes.toString('latin1')));
    expect(countO200k(bytes.toString('utf8'))).toBe(ref(bytes.toString('utf8')));
  });

  it('on random strings', () => {
    const pieces = [
      'a',
      'Z',
      'q',
      ' ',
      '\n',
      '\t',
      '\r',
      '\uFEFF',
      '\uD800',
      '\uDC00',
      '😀',
      'é',
      'e\u0301',
      '中',
      'ж',
      '1',
      '99',
      "'s",
      '//',
      '<|endoftext|>',
      '\u00A0',
      'ß',
      '\u200b',
      'ǅ',
      '\x00',
      '\x7f',
      '{',
      '}',
      '.',
      '_',
      'def',
      'self',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
        const s = parts.join('');
        expect(countO200k(s)).toBe(ref(s));
      }),
      { numRuns: 3000, seed: 21 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        expect(countO200k(s)).toBe(ref(s));
      }),
      { numRuns: 3000, seed: 21 },
    );
  });
});
