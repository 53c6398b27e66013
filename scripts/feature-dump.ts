/**
 * Dump the line-feature matrices of real files (gold files of the dev cases with their issue texts,
 * shipped bridge) to one binary file, to compare two versions of the feature code bit for bit.
 *   npx tsx scripts/feature-dump.ts out.bin [--files 40]
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { lineFeatures } from '../src/core/features/lineFeatures.js';
import { loadModel } from '../src/core/model/io.js';
import { buildSyntaxIndex, detectLanguage, ensureGrammar } from '../src/core/syntax/index.js';

const args = process.argv.slice(2);
const out = args[0];
const count = Number(args.includes('--files') ? args[args.indexOf('--files') + 1] : 40);
const bench = path.resolve(import.meta.dirname ?? '.', '../../shared/bench');
const { bridge } = loadModel(path.resolve(import.meta.dirname ?? '.', '../models/default'));
interface Case {
  query: string;
  path?: string;
  code?: string;
  files?: { path: string; content: string }[];
}
const chunks: Buffer[] = [];
const hash = createHash('sha256');
for (const name of ['swebench-dev.jsonl.gz', 'polyglot-dev.jsonl.gz', 'goalhint-dev.jsonl.gz', 'replay-dev.jsonl.gz']) {
  const cases = zlib
    .gunzipSync(readFileSync(path.join(bench, name)))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Case);
  let done = 0;
  for (const c of cases) {
    for (const f of c.files ?? [{ path: c.path ?? '', content: c.code ?? '' }]) {
      if (done >= count) break;
      const language = detectLanguage(f.path, f.content);
      await ensureGrammar(language);
      const lines = f.content.split('\n');
      const X = lineFeatures({ query: c.query, lines, syntax: buildSyntaxIndex(lines, language), language, path: f.path }, { bridge });
      const b = Buffer.from(X.buffer, X.byteOffset, X.byteLength);
      chunks.push(b);
      hash.update(b);
      done++;
    }
  }
}
if (out) writeFileSync(out, Buffer.concat(chunks));
console.log(`${chunks.length} files, ${chunks.reduce((s, b) => s + b.length, 0) / 8} values, sha256 ${hash.digest('hex')}`);
