/**
 * Measures buildSyntaxIndex time on real files cut to 1,000 and 5,000 lines, per language.
 * Usage: npx tsx scripts/syntax-speed.ts [path/to/polyglot-dev.jsonl.gz]
 * Files come from the polyglot bench set; a language's files are concatenated until long enough.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { buildSyntaxIndex, ensureGrammar } from '../src/core/syntax/index.js';

const src = process.argv[2] ?? '/work/shared/bench/polyglot-dev.jsonl.gz';
const rows = gunzipSync(readFileSync(src))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { lang: string; code: string; path: string });

const byLang = new Map<string, string[]>();
for (const r of rows) {
  const lines = byLang.get(r.lang) ?? [];
  // whole files one after another so every prefix is real code
  if (lines.length < 5000) lines.push(...r.code.split('\n'));
  byLang.set(r.lang, lines);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

console.log('language     lines  grammar  median ms (of 7 runs)');
for (const [lang, all] of [...byLang].sort()) {
  await ensureGrammar(lang);
  for (const size of [1000, 5000]) {
    if (all.length < size) continue;
    const lines = all.slice(0, size);
    buildSyntaxIndex(lines, lang); // warm-up (JIT)
    const times: number[] = [];
    let hasGrammar = false;
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const idx = buildSyntaxIndex(lines, lang);
      times.push(performance.now() - t0);
      hasGrammar = idx.hasGrammar;
    }
    console.log(`${lang.padEnd(12)} ${String(size).padStart(5)}  ${String(hasGrammar).padEnd(7)}  ${median(times).toFixed(1)}`);
  }
}
