/**
 * What /v1/info reports about the pruning engine: the scorer in use and the languages that have
 * a tree-sitter grammar (other languages still prune, with the indentation/bracket fallback).
 */
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Grammar names shipped by the wasm package ("tree-sitter-python.wasm" -> "python"). */
export async function grammarLanguages(): Promise<string[]> {
  try {
    const require = createRequire(import.meta.url);
    const dir = join(dirname(require.resolve('@repomix/tree-sitter-wasms/package.json')), 'out');
    const names = await readdir(dir);
    return names
      .filter((n) => n.startsWith('tree-sitter-') && n.endsWith('.wasm'))
      .map((n) => n.slice('tree-sitter-'.length, -'.wasm'.length))
      .sort();
  } catch {
    return [];
  }
}
