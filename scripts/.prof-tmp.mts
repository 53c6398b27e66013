import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { buildSyntaxIndex, ensureGrammar } from '../src/core/syntax/index.js';
import { loadedParser } from '../src/core/syntax/grammars.js';
const lang = process.argv[2] ?? 'python';
const rows = gunzipSync(readFileSync('/work/shared/bench/polyglot-dev.jsonl.gz')).toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const all: string[] = [];
for (const r of rows) if (r.lang === lang && all.length < 5000) all.push(...r.code.split('\n'));
const lines = all.slice(0, 5000);
await ensureGrammar(lang);
const p = loadedParser(lang)!;
for (let i = 0; i < 5; i++) {
  let t0 = performance.now();
  const tree = p.parse(lines.join('\n'))!;
  const tp = performance.now() - t0;
  tree.delete();
  t0 = performance.now();
  buildSyntaxIndex(lines, lang);
  console.log('parse', tp.toFixed(1), 'full', (performance.now() - t0).toFixed(1));
}
