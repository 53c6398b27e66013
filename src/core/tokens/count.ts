/**
 * Token counting with a real tokenizer (o200k_base, as used by current OpenAI models; close
 * enough to other BPE vocabularies for budgets). Per-line counts are cached: tool outputs repeat
 * lines a lot (blank lines, closers), and budget search counts lines many times.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/** Above this many characters text is encoded in line-aligned chunks. */
const CHUNK_CHARS = 100_000;
/** A run of non-space characters longer than this is estimated: BPE on one huge pre-token is quadratic. */
const LONG_RUN = 2_000;
/**
 * Special-token strings in a file (`<|endoftext|>`, `<|im_start|>`) are ordinary text: the
 * tokenizer's default refuses them (throws), and allowing them would count each as one token.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

function exact(text: string): number {
  return countO200k(text, AS_TEXT);
}

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length <= LONG_RUN) return exact(text);
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

/** Exact count, except runs of >= 2,000 non-space characters (minified code, base64), counted as 1 token per 2 characters (an over-estimate). */
function countChunk(chunk: string): number {
  let total = 0;
  let last = 0;
  let runStart = 0;
  for (let i = 0; i <= chunk.length; i++) {
    const c = i < chunk.length ? chunk.charCodeAt(i) : 32;
    if (c === 32 || c === 10 || c === 9 || c === 13) {
      if (i - runStart >= LONG_RUN) {
        total += exact(chunk.slice(last, runStart)) + Math.ceil((i - runStart) / 2);
        last = i;
      }
      runStart = i + 1;
    }
  }
  return total + exact(chunk.slice(last));
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
