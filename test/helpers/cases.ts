/** Read the shared benchmark cases (gzip JSONL) for tests. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export const SHARED = path.resolve(__dirname, '../../../shared');

export function readJsonlGz<T>(rel: string): T[] {
  const file = path.join(SHARED, rel);
  if (!existsSync(file)) throw new Error(`missing shared data: ${file}`);
  return zlib
    .gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

export interface PolyglotCase {
  repo: string;
  path: string;
  lang: string;
  query: string;
  code: string;
  gold_lines: number[];
  anchor_lines: number[];
}
