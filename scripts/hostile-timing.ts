/**
 * Time of the pieces the tests bound by counting (test/grep/linePattern.test.ts,
 * test/grep/syntax.test.ts, test/core/features/lineFeatures.test.ts,
 * test/core/tokens/count.test.ts): catastrophic patterns, hostile queries, long whitespace runs.
 * The tests check the work (characters read, BPE steps); this measures the clock, which a test
 * must not (a loaded machine makes a timed assertion fail at random):
 *
 *   npx tsx scripts/hostile-timing.ts [--md]
 *
 * Each case runs once to warm up (a warm process), then the median of 5 runs is reported. prune()
 * on large inputs is timed by scripts/scaling.ts.
 */
import { loadavg } from 'node:os';
import { emptyBridge } from '../src/core/features/bridge.js';
import { analyzeQuery } from '../src/core/features/queryAnalysis.js';
import { countTokens } from '../src/core/tokens/count.js';
import { compileGrepMatcher, compileLinePattern } from '../src/grep/linePattern.js';

interface Case {
  group: string;
  name: string;
  chars: number;
  run: () => unknown;
}

const mixedWhitespace = (n: number) => Array.from({ length: n }, (_, i) => ' \t\n\r'[(i * 7919) % 4]).join('');

const CASES: Case[] = [];
for (const [pattern, line] of [
  ['(a+)+$', `${'a'.repeat(100)}b`],
  ['(a|aa)*c', 'a'.repeat(5000)],
  ['(\\w+\\s?)+$', `${'word '.repeat(20_000)}!`],
  ['(.*)*(.*)*Z', 'ab'.repeat(1_000_000)],
] as const) {
  const re = compileLinePattern(pattern);
  CASES.push({ group: 'MCP grep pattern (RE2)', name: `/${pattern}/`, chars: line.length, run: () => re.test(line) });
}
const evil = `${'a'.repeat(5000)}b`;
for (const [dialect, pattern] of [
  ['basic', '\\(a\\+\\)\\+$'],
  ['extended', '(a+)+$'],
  ['extended', '(a|aa)*c'],
  ['perl', '(a+)+$'],
  ['perl', '(?<=(a|aa)*)c'],
] as const) {
  const m = compileGrepMatcher([pattern], { dialect });
  CASES.push({ group: 'skim grep pattern', name: `${dialect} ${pattern}`, chars: evil.length, run: () => m.test(evil) });
}
for (const [name, q] of [
  ['20,000 blank lines', '\n'.repeat(20_000) + 'x'],
  ['10,000 open calls', 'a('.repeat(10_000)],
  ['one 20,000-character word', 'q'.repeat(20_000)],
  ['a9 x 10,000 then (', 'a9'.repeat(10_000) + '('],
] as const) {
  CASES.push({ group: 'query analysis', name, chars: q.length, run: () => analyzeQuery(q, emptyBridge()) });
}
for (const [name, text] of [
  ['200,000 spaces', ' '.repeat(200_000)],
  ['100,000 CRs', '\r'.repeat(100_000)],
  ['100,000 mixed whitespace', mixedWhitespace(100_000)],
  ['; then 50,000 line-break-slash pairs', ';' + '\n/'.repeat(50_000)],
] as const) {
  // a new text each run: countTokens remembers the counts of recent large texts
  let run = 0;
  CASES.push({ group: 'token count', name, chars: text.length, run: () => countTokens(`${text}${run++}`) });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const md = process.argv.includes('--md');
const load = loadavg()[0]!;
const rows: string[] = [];
for (const c of CASES) {
  c.run();
  const times: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    c.run();
    times.push(performance.now() - t0);
  }
  const ms = median(times);
  rows.push(
    md
      ? `| ${c.group} | ${c.name.replaceAll('|', '\\|')} | ${c.chars.toLocaleString('en')} | ${ms.toFixed(1)} |`
      : `${c.group.padEnd(24)} ${c.name.padEnd(40)} ${String(c.chars).padStart(9)} chars ${ms.toFixed(1).padStart(8)} ms`,
  );
}
if (md) process.stdout.write('| what | case | characters | median ms |\n|---|---|---:|---:|\n');
process.stdout.write(`${rows.join('\n')}\n`);
process.stdout.write(`${md ? '\n' : ''}1-minute load average at the start: ${load.toFixed(2)}\n`);
