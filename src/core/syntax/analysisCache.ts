/**
 * The syntax indexes of recently analysed texts, by language and content. The index depends on
 * the text alone (not on the question), and agents read the same file again and again, with other
 * questions (a warm server, `skim serve`, sees it most): a text analysed before skips its
 * tree-sitter parse and tree walk, about half of a warm prune of a 1,000-line file. Nothing
 * downstream changes an index (derived tables are kept beside it, in WeakMaps), so sharing one
 * between calls gives the same output. Bounded by entries and characters; the core's settings
 * turn it off (analysisCache: false, SKIM_ANALYSIS_CACHE=0 at the edges).
 */
import type { Diagnostic } from '../diagnostics.js';
import { coreSettings } from '../settings.js';
import type { SyntaxIndex } from '../types.js';

export interface CachedAnalysis {
  syntax: SyntaxIndex;
  texts: string[];
  /** What building the index noted (a skipped parse), replayed on every hit. */
  notes: Diagnostic[];
}

const MAX_ENTRIES = 16;
const MAX_TOTAL_CHARS = 2_000_000;
/** An index takes about 15 bytes of heap per character of its text (about 0.45 MB for a 30 KB file). Larger texts are not kept: each would take a large share of the cache. */
const MAX_ENTRY_CHARS = 500_000;

const entries = new Map<string, CachedAnalysis>();
let totalChars = 0;

/** The cache key of a segment's lines in a language; null when the text is not to be cached. */
export function analysisKey(texts: readonly string[], language: string): string | null {
  if (!coreSettings().analysisCache) return null;
  let chars = 0;
  for (const t of texts) {
    chars += t.length + 1;
    if (chars > MAX_ENTRY_CHARS) return null;
  }
  return `${language}\u0000${texts.join('\n')}`;
}

export function cachedAnalysis(key: string): CachedAnalysis | undefined {
  const hit = entries.get(key);
  if (hit) {
    // most recently used last
    entries.delete(key);
    entries.set(key, hit);
  }
  return hit;
}

export function rememberAnalysis(key: string, entry: CachedAnalysis): void {
  if (entries.has(key)) return;
  entries.set(key, entry);
  totalChars += key.length;
  for (const [k] of entries) {
    if (entries.size <= MAX_ENTRIES && totalChars <= MAX_TOTAL_CHARS) break;
    entries.delete(k);
    totalChars -= k.length;
  }
}

/** Test hook: forget every cached analysis. */
export function clearAnalysisCache(): void {
  entries.clear();
  totalChars = 0;
}
