/** One place that turns text into a tree: time limit, PHP open tag, never throws. */
import type { Parser, Tree } from 'web-tree-sitter';
import { work } from '../work.js';

/** Abandon a parse after this long (pathological inputs); callers then fall back. */
const PARSE_TIME_LIMIT_MS = 3000;

/**
 * PHP code only parses as PHP after `<?php`; a fragment without it would be one `text` node.
 * The tag is put at the start of the first line so rows stay the same.
 */
export function phpPrefix(text: string): string {
  return /<\?(php|=)?/.test(text.slice(0, 50000)) ? '' : '<?php ';
}

export function parseText(parser: Parser, text: string, language: string): Tree | null {
  const source = language === 'php' ? phpPrefix(text) + text : text;
  work.parses++;
  work.parsedChars += source.length;
  const started = performance.now();
  try {
    const tree = parser.parse(source, null, {
      progressCallback: () => performance.now() - started > PARSE_TIME_LIMIT_MS,
    });
    // a cancelled parse would otherwise resume on the next call
    if (!tree) parser.reset();
    return tree;
  } catch {
    parser.reset();
    return null;
  }
}
