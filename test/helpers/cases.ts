/**
 * Real cases for the corpus-wide tests. By default a slice shipped in test/fixtures (46 real files,
 * 4 per language, from ../shared/bench/polyglot-dev.jsonl.gz; see test/fixtures/bench/README.md),
 * so `npm test` passes from the repository alone; `npm run test:shared` (SKIM_TEST_CORPUS=shared)
 * runs the same tests over all 310 files of ../shared.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { CommitRecord } from '../../src/train/datasets.js';

export const SHARED = path.resolve(__dirname, '../../../shared');
const FIXTURES = path.resolve(__dirname, '../fixtures');

/** True when the corpus-wide tests run over ../shared instead of the shipped slice. */
export const FULL_CORPUS = process.env.SKIM_TEST_CORPUS === 'shared';

function readGzLines<T>(file: string): T[] {
  if (!existsSync(file)) throw new Error(`missing test data: ${file}`);
  return zlib
    .gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

export function readJsonlGz<T>(rel: string): T[] {
  return readGzLines<T>(path.join(SHARED, rel));
}

/** The polyglot corpus: the shipped slice, or all of polyglot-dev with SKIM_TEST_CORPUS=shared. */
export function polyglotCases(): PolyglotCase[] {
  return FULL_CORPUS
    ? readJsonlGz<PolyglotCase>('bench/polyglot-dev.jsonl.gz')
    : readGzLines<PolyglotCase>(path.join(FIXTURES, 'bench/polyglot-slice.jsonl.gz'));
}

/** A polyglot-dev case: a commit sample's fields without the commit and split. */
export type PolyglotCase = Omit<CommitRecord, 'commit' | 'split'>;
