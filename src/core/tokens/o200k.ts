/**
 * o200k_base token counts, the same as gpt-tokenizer's `countTokens(text, { disallowedSpecial:
 * new Set() })` (special-token strings count as the text they are), from the binary vocabulary in
 * assets/o200k_base.bin (./o200kTable.ts). The pre-token split is gpt-tokenizer's own regular
 * expression; a pre-token that is a token counts 1, any other is byte-pair merged as
 * gpt-tokenizer does it, lookups included (see `pairRank`). gpt-tokenizer itself is only a
 * development dependency (it builds the table, and the tests compare counts with it): a table that
 * is missing or unreadable is a broken install, and counting says so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { work } from '../work.js';
import { findToken, KIND_BYTES, KIND_STRING, type O200kTable, readO200kTable } from './o200kTable.js';

/** assets/o200k_base.bin of this package, found from this module's location (src/ via tsx, dist/). */
export function o200kTablePath(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 6; k++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'assets', 'o200k_base.bin');
    dir = dirname(dir);
  }
  return null;
}

let table: O200kTable | null | undefined;
/**
 * gpt-tokenizer's pre-token split for o200k_base (its O200K_TOKEN_SPLIT_REGEX, copied; the tests
 * check the two agree).
 */
export const O200K_SPLIT =
  /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
const split = new RegExp(O200K_SPLIT.source, O200K_SPLIT.flags);

function loadTable(): O200kTable | null {
  const file = o200kTablePath();
  try {
    return file ? readO200kTable(readFileSync(file)) : null;
  } catch {
    return null;
  }
}

/** Any UTF-16 code unit outside ASCII (surrogates included: no `u` flag). */
const NON_ASCII = /[\u0080-\uffff]/;

/** Tokens of `text` under o200k_base, special-token strings counted as text. */
export function countO200k(text: string): number {
  if (table === undefined) table = loadTable();
  if (table === null) throw new Error(`the o200k token table (${o200kTablePath() ?? 'assets/o200k_base.bin'}) is missing or damaged: reinstall skim`);
  work.tokenizedChars += text.length;
  if (!NON_ASCII.test(text)) return countAscii(table, text);
  split.lastIndex = 0;
  let n = 0;
  for (let m = split.exec(text); m !== null; m = split.exec(text)) n += countPiece(table, m[0]);
  return n;
}

/**
 * countO200k of ASCII text without the regular expression or a string per pre-token: the split
 * by asciiPreTokenEnd, each pre-token's bytes looked up in place; only a pre-token that is not one
 * token (merged, and cached) becomes a string. Most pre-tokens of code are one token.
 */
function countAscii(t: O200kTable, text: string): number {
  if (scratch.length < text.length) scratch = new Uint8Array(text.length + 1024);
  for (let i = 0; i < text.length; i++) scratch[i] = text.charCodeAt(i);
  let n = 0;
  for (let i = 0; i < text.length; ) {
    const end = asciiPreTokenEnd(text, i);
    const r = findToken(t, scratch, i, end);
    if (r >= 0 && t.kinds[r] === KIND_STRING) n++;
    else n += countPiece(t, text.slice(i, end));
    i = end;
  }
  return n;
}

// ASCII character classes of O200K_SPLIT: \p{Lu}, \p{Ll}, \p{N}, \s (\t \n \v \f \r and space)
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const SPACE = 8;
const NEWLINE = 16;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) ASCII_CLASS[c] = UPPER;
  else if (c >= 97 && c <= 122) ASCII_CLASS[c] = LOWER;
  else if (c >= 48 && c <= 57) ASCII_CLASS[c] = DIGIT;
  else if (c === 10 || c === 13) ASCII_CLASS[c] = SPACE | NEWLINE;
  else if ((c >= 9 && c <= 12) || c === 32) ASCII_CLASS[c] = SPACE;
}
const LETTER = UPPER | LOWER;

/**
 * Where the O200K_SPLIT pre-token starting at `i` of ASCII text ends, by its alternatives in
 * order (the regular expression takes the first that matches):
 *   1. `P?[A-Z]*[a-z]+C?`, P a character other than a letter, a digit or a line break, C a
 *      contraction ('s 'd 'm 't 'll 've 're, any case)
 *   2. `P?[A-Z]+[a-z]*C?`
 *   3. `[0-9]{1,3}`
 *   4. ` ?O+[\r\n/]*`, O a character other than whitespace, a letter or a digit
 *   5. `\s*[\r\n]+`: the whitespace run up to its last line break
 *   6. `\s+(?!\S)`: the whitespace run at the end of the text, else all of it but its last character
 *   7. `\s+`
 */
export function asciiPreTokenEnd(s: string, i: number): number {
  const len = s.length;
  const c = ASCII_CLASS[s.charCodeAt(i)]!;
  if (c & LETTER || c === 0 || c === SPACE) {
    // 1 and 2: a prefix P (when `c` is not a letter), upper case letters, lower case ones; at
    // least one letter (either alternative then matches to the end of the lower case ones)
    const j = c & LETTER ? i : i + 1;
    let k = j;
    while (k < len && ASCII_CLASS[s.charCodeAt(k)] === UPPER) k++;
    while (k < len && ASCII_CLASS[s.charCodeAt(k)] === LOWER) k++;
    if (k > j) return contraction(s, k);
  }
  if (c === DIGIT) {
    let k = i + 1;
    while (k < i + 3 && k < len && ASCII_CLASS[s.charCodeAt(k)] === DIGIT) k++;
    return k;
  }
  if (c === 0 || (s.charCodeAt(i) === 32 && i + 1 < len && ASCII_CLASS[s.charCodeAt(i + 1)] === 0)) {
    let k = c === 0 ? i + 1 : i + 2;
    while (k < len && ASCII_CLASS[s.charCodeAt(k)] === 0) k++;
    while (k < len) {
      const x = s.charCodeAt(k);
      if (x !== 10 && x !== 13 && x !== 47) break;
      k++;
    }
    return k;
  }
  // 5 to 7: a whitespace run
  let e = i;
  let lastBreak = -1;
  while (e < len) {
    const x = ASCII_CLASS[s.charCodeAt(e)]!;
    if (!(x & SPACE)) break;
    if (x & NEWLINE) lastBreak = e;
    e++;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  return e === len || e - i === 1 ? e : e - 1;
}

/** Past the contraction at `k` ('s 'd 'm 't 'll 've 're, any case), if there is one. */
function contraction(s: string, k: number): number {
  if (s.charCodeAt(k) !== 39) return k;
  const a = s.charCodeAt(k + 1) | 32;
  if (a === 115 || a === 100 || a === 109 || a === 116) return k + 2;
  const b = s.charCodeAt(k + 2) | 32;
  if ((a === 108 && b === 108) || (a === 118 && b === 101) || (a === 114 && b === 101)) return k + 3;
  return k;
}

let scratch = new Uint8Array(1024);
const encoder = new TextEncoder();
/**
 * Pre-token -> its token count, bounded. Code repeats its pre-tokens (names, indentation,
 * punctuation): a map hit costs less than encoding and hashing the piece again, above all
 * while the process is young and the lookup code has not been optimized yet.
 */
const pieceCache = new Map<string, number>();
const PIECE_CACHE_MAX = 100_000;

/** UTF-8 bytes of `s` into `scratch`; their count. Lone surrogates become U+FFFD, as TextEncoder does. */
function encodeScratch(s: string): number {
  if (scratch.length < s.length * 3) scratch = new Uint8Array(s.length * 3 + 1024);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(s, scratch).written;
    scratch[i] = c;
  }
  return s.length;
}

function countPiece(t: O200kTable, piece: string): number {
  let n = pieceCache.get(piece);
  if (n !== undefined) return n;
  const len = encodeScratch(piece);
  // gpt-tokenizer first looks the whole pre-token up as a string (a lone surrogate never matches)
  const r = findToken(t, scratch, 0, len);
  n = r >= 0 && t.kinds[r] === KIND_STRING && (len === piece.length || isWellFormed(piece)) ? 1 : mergeCount(t, scratch.subarray(0, len));
  if (pieceCache.size >= PIECE_CACHE_MAX) pieceCache.delete(pieceCache.keys().next().value as string);
  pieceCache.set(piece, n);
  return n;
}

/** No lone surrogate (String.prototype.isWellFormed, which the ES2022 library types lack). */
function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return false;
    const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    if (d < 0xdc00 || d > 0xdfff) return false;
    i++;
  }
  return true;
}

/**
 * Byte-pair merging as gpt-tokenizer's `bytePairMerge`: repeatedly join the adjacent pair of
 * lowest rank (the leftmost on ties) until no adjacent pair is a token; the count of the parts.
 */
function mergeCount(t: O200kTable, piece: Uint8Array): number {
  const starts: number[] = [];
  const ranks: number[] = [];
  const rankOf = (a: number, b: number | undefined): number => (b === undefined ? Infinity : pairRank(t, piece, a, b));
  for (let i = 0; i <= piece.length; i++) {
    starts.push(i);
    ranks.push(i < piece.length - 1 ? pairRank(t, piece, i, i + 2) : Infinity);
  }
  while (starts.length > 1) {
    let lowest = Infinity;
    let at = -1;
    work.bpeSteps += ranks.length;
    for (let i = 0; i < ranks.length - 1; i++) {
      if (ranks[i] < lowest) {
        lowest = ranks[i];
        at = i;
      }
    }
    if (lowest === Infinity || at === -1) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = rankOf(starts[at], starts[at + 2]);
    if (at > 0) ranks[at - 1] = rankOf(starts[at - 1], starts[at + 1]);
  }
  return starts.length - 1;
}

/**
 * The rank gpt-tokenizer finds for bytes[a, b) while merging (`getBpeRankFromBytes`): bytes that
 * are valid UTF-8 are decoded (TextDecoder drops a leading byte-order mark) and looked up among
 * the string tokens; other bytes among the byte tokens. Infinity when there is none.
 */
function pairRank(t: O200kTable, bytes: Uint8Array, a: number, b: number): number {
  if (isValidUtf8(bytes, a, b)) {
    if (b - a >= 3 && bytes[a] === 0xef && bytes[a + 1] === 0xbb && bytes[a + 2] === 0xbf) a += 3;
    const r = findToken(t, bytes, a, b);
    return r >= 0 && t.kinds[r] === KIND_STRING ? r : Infinity;
  }
  const r = findToken(t, bytes, a, b);
  return r >= 0 && t.kinds[r] === KIND_BYTES ? r : Infinity;
}

/** gpt-tokenizer's `isValidUTF8` (utfUtil.js), on bytes[start, end). */
function isValidUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const byte1 = bytes[i];
    let numBytes: number;
    let codePoint: number;
    if (byte1 <= 127) {
      i++;
      continue;
    } else if ((byte1 & 224) === 192) {
      numBytes = 2;
      codePoint = byte1 & 31;
      if (byte1 <= 193) return false;
    } else if ((byte1 & 240) === 224) {
      numBytes = 3;
      codePoint = byte1 & 15;
    } else if ((byte1 & 248) === 240) {
      numBytes = 4;
      codePoint = byte1 & 7;
      if (byte1 > 244) return false;
    } else return false;
    if (i + numBytes > end) return false;
    for (let j = 1; j < numBytes; j++) {
      const byte = bytes[i + j];
      if ((byte & 192) !== 128) return false;
      codePoint = (codePoint << 6) | (byte & 63);
    }
    if (numBytes === 2 && codePoint < 128) return false;
    if (numBytes === 3 && codePoint < 2048) return false;
    if (numBytes === 4 && codePoint < 65536) return false;
    if (codePoint >= 55296 && codePoint <= 57343) return false;
    if (codePoint > 1114111) return false;
    i += numBytes;
  }
  return true;
}
