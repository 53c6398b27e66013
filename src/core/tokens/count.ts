/**
 * Token counting with a real tokenizer (o200k_base, as used by current OpenAI models; close
 * enough to other BPE vocabularies for budgets), counted from a binary vocabulary (./o200k.ts).
 * Per-line counts are cached: tool outputs repeat lines a lot (blank lines, closers), and budget
 * search counts lines many times.
 */
import { countO200k } from './o200k.js';

/** Above this many characters text is encoded in line-aligned chunks. */
const CHUNK_CHARS = 100_000;
/** A run longer than this is not given to the tokenizer whole: BPE on one huge pre-token is quadratic. */
const LONG_RUN = 2_000;
/** Long runs of whitespace are counted exactly in pieces this long (each piece's BPE is cheap). */
const PIECE = 1_000;
/**
 * Exact o200k count. Special-token strings in a file (`<|endoftext|>`, `<|im_start|>`) are
 * ordinary text: counted as such, never as one special token, never an error (./o200k.ts).
 */
function exact(text: string): number {
  return countO200k(text);
}

/**
 * Counts of recent large texts: a file read again (a warm server, with another question) and an
 * output equal to an earlier one are not counted again. Keyed by the text itself.
 */
const MEMO_MIN_CHARS = 4_096;
const MEMO_MAX_CHARS = 250_000;
const MEMO_ENTRIES = 16;
const memo = new Map<string, number>();

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= LONG_RUN) return exact(text);
  if (text.length < MEMO_MIN_CHARS || text.length > MEMO_MAX_CHARS) return countLarge(text);
  const known = memo.get(text);
  if (known !== undefined) return known;
  const n = countLarge(text);
  memo.set(text, n);
  if (memo.size > MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
  return n;
}

function countLarge(text: string): number {
  let total = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK_CHARS);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start) end = nl + 1;
    }
    total += countChunk(text.slice(start, end));
    start = end;
  }
  return total;
}

/** Exact, except runs of >= 2,000 non-space characters (minified code, base64), counted as 1 token per 2 characters (an over-estimate). */
function countChunk(chunk: string): number {
  if (!hasLongRun(chunk)) return exact(chunk); // (the usual case: one scan instead of countChunk's and countSpaced's)
  let total = 0;
  let last = 0;
  let runStart = 0;
  for (let i = 0; i <= chunk.length; i++) {
    const c = i < chunk.length ? chunk.charCodeAt(i) : 32;
    if (c === 32 || c === 10 || c === 9 || c === 13) {
      if (i - runStart >= LONG_RUN) {
        total += countSpaced(chunk.slice(last, runStart)) + Math.ceil((i - runStart) / 2);
        last = i;
      }
      runStart = i + 1;
    }
  }
  return total + countSpaced(chunk.slice(last));
}

/**
 * Exact, except runs of >= 2,000 whitespace characters (a line of 100,000 spaces, 10,000 blank
 * lines), counted in 1,000-character pieces: the tokenizer makes one pre-token of a whole
 * whitespace run. `/` counts with the whitespace, since o200k glues a run of line breaks and
 * slashes to the punctuation before it (`;\n/\n/\n...` is one pre-token).
 */
function countSpaced(text: string): number {
  if (text.length <= LONG_RUN) return exact(text);
  let total = 0;
  let last = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && isSpaceOrSlash(text.charCodeAt(i))) continue;
    if (i - runStart >= LONG_RUN) {
      total += exact(text.slice(last, runStart));
      for (let p = runStart; p < i; p += PIECE) total += exact(text.slice(p, Math.min(i, p + PIECE)));
      last = i;
    }
    runStart = i + 1;
  }
  return total + exact(text.slice(last));
}

/**
 * Whether `text` holds a run that countChunk or countSpaced counts apart: >= LONG_RUN characters
 * other than space, tab and line breaks, or >= LONG_RUN whitespace characters and slashes.
 */
function hasLongRun(text: string): boolean {
  let plain = 0;
  let spaced = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    plain = c === 32 || c === 10 || c === 9 || c === 13 ? 0 : plain + 1;
    spaced = isSpaceOrSlash(c) ? spaced + 1 : 0;
    if (plain >= LONG_RUN || spaced >= LONG_RUN) return true;
  }
  return false;
}

/** `/` or a character of the regular-expression class `\s` (which the tokenizer's pre-token split uses). */
function isSpaceOrSlash(c: number): boolean {
  if (c <= 0x7f) return c === 32 || c === 47 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

const lineCache = new Map<string, number>();
const LINE_CACHE_MAX = 50_000;

/** Tokens of one output line including its terminator (an upper bound on its share of the whole text). */
export function countLineTokens(line: string): number {
  let n = lineCache.get(line);
  if (n !== undefined) return n;
  n = countTokens(line + '\n');
  if (lineCache.size >= LINE_CACHE_MAX) lineCache.clear();
  lineCache.set(line, n);
  return n;
}
