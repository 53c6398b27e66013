/**
 * Token counting with a real tokenizer (o200k_base, as used by current OpenAI models; close
 * enough to other BPE vocabularies for budgets). Per-line counts are cached: tool outputs repeat
 * lines a lot (blank lines, closers), and budget search counts lines many times.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/** Above this many characters a single chunk is estimated instead of encoded (BPE on megabyte lines is slow). */
const EXACT_LIMIT = 200_000;

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= EXACT_LIMIT) return countO200k(text);
  // Encode in line-aligned chunks: exact up to merges across chunk borders (a slight over-count).
  let total = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + EXACT_LIMIT);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start) end = nl + 1;
    }
    const chunk = text.slice(start, end);
    // A chunk without any whitespace (minified/binary-ish) is pathological for BPE: bound it.
    total += /\s/.test(chunk) ? countO200k(chunk) : Math.ceil(chunk.length / 2);
    start = end;
  }
  return total;
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
