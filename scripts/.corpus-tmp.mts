import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { buildSyntaxIndex, ensureGrammar, detectLanguage } from '../src/core/syntax/index.js';
const rows = gunzipSync(readFileSync('/work/shared/bench/polyglot-dev.jsonl.gz')).toString().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const stats: Record<string, { n: number; ok: number; fb: number; scopes: number; ms: number; det: number }> = {};
for (const r of rows) {
  const lang = r.lang;
  await ensureGrammar(lang);
  const lines = r.code.split('\n');
  const t0 = performance.now();
  const idx = buildSyntaxIndex(lines, lang);
  const ms = performance.now() - t0;
  const s = (stats[lang] ??= { n: 0, ok: 0, fb: 0, scopes: 0, ms: 0, det: 0 });
  s.n++; s.ok += idx.parseOk ? 1 : 0; s.fb += idx.hasGrammar ? 0 : 1; s.scopes += idx.scopes.length; s.ms += ms;
  s.det += detectLanguage(r.path, r.code) === lang ? 1 : 0;
  for (const [i, l] of idx.lines.entries()) {
    if (l.stmtStart > i || l.stmtEnd < i || l.depth !== l.scopes.length) { console.log('BAD', r.path, i); break; }
  }
}
console.table(stats);
