/**
 * Measures buildSyntaxIndex time on real files cut to 1,000 and 5,000 lines, per language.
 * Usage: npx tsx scripts/syntax-speed.ts [path/to/polyglot-dev.jsonl.gz]
 * Files come from the polyglot bench set; a language's files are concatenated until long enough.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { loadedParser } from '../src/core/syntax/grammars.js';
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

/** CPU milliseconds of this process (user+system): less disturbed than wall time on a busy machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

console.log('median of 7 runs; cpu = process CPU time, parse = tree-sitter parse alone (cpu)');
console.log('language     lines  grammar parseOk  wall ms  cpu ms  parse ms');
for (const [lang, all] of [...byLang].sort()) {
  await ensureGrammar(lang);
  for (const size of [1000, 5000]) {
    if (all.length < size) continue;
    const lines = all.slice(0, size);
    buildSyntaxIndex(lines, lang); // warm-up (JIT)
    const wall: number[] = [];
    const cpu: number[] = [];
    const parse: number[] = [];
    let hasGrammar = false;
    let parseOk = false;
    const parser = loadedParser(lang);
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const c0 = cpuMs();
      const idx = buildSyntaxIndex(lines, lang);
      cpu.push(cpuMs() - c0);
      wall.push(performance.now() - t0);
      hasGrammar = idx.hasGrammar;
      parseOk = idx.parseOk;
      if (parser) {
        const p0 = cpuMs();
        parser.parse(lines.join('\n'))?.delete();
        parse.push(cpuMs() - p0);
      }
    }
    const p = parse.length ? median(parse).toFixed(1) : '-';
    console.log(
      `${lang.padEnd(12)} ${String(size).padStart(5)}  ${String(hasGrammar).padEnd(7)} ${String(parseOk).padEnd(7)} ${median(wall).toFixed(1).padStart(7)} ${median(cpu).toFixed(1).padStart(7)} ${p.padStart(8)}`,
    );
  }
}
