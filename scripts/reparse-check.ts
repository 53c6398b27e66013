/**
 * Does parsing the pruned output from the input's edited tree (reparseLines, what the syntax fix
 * does) give the same answer as a fresh parse? Every file of the SWE-bench and polyglot benchmarks
 * is pruned at ratio 4, ratio 8 and in the default (adaptive) mode; each output, and a damaged copy
 * of it (every third kept line dropped, so most fail to parse), is parsed both ways. Reports the
 * disagreements (has-error, the error rows the fix uses, the tree's S-expression) and the CPU of
 * each way.
 *
 *   npx tsx scripts/reparse-check.ts [--limit N]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createPruner } from '../src/core/prune.js';
import { syntaxErrorRows } from '../src/core/repair/validate.js';
import { configureCore } from '../src/core/settings.js';
import { loadedParser } from '../src/core/syntax/grammars.js';
import { detectLanguage, ensureGrammar, normalizeLanguage } from '../src/core/syntax/index.js';
import { type ParsedLines, parseLines, parseText, reparseLines } from '../src/core/syntax/parse.js';

const args = process.argv.slice(2);
const limit = args.includes('--limit') ? Number(args[args.indexOf('--limit') + 1]) : Infinity;
const BENCH = join(import.meta.dirname ?? '.', '../../shared/bench');

function files(): { path: string; code: string; query: string }[] {
  const out: { path: string; code: string; query: string }[] = [];
  const read = (name: string) =>
    gunzipSync(readFileSync(join(BENCH, name)))
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  for (const c of read('swebench-dev.jsonl.gz')) for (const f of c.files) out.push({ path: f.path, code: f.content, query: c.query });
  for (const c of read('polyglot-dev.jsonl.gz')) out.push({ path: c.path, code: c.code, query: c.query });
  return out.slice(0, limit);
}

/** Output lines and, for each, the input line it is a copy of (kept lines in order), or -1. */
function outputFrom(inputLines: string[], keepMask: Uint8Array, outText: string): { lines: string[]; from: Int32Array } {
  const lines = outText.split('\n');
  const from = new Int32Array(lines.length).fill(-1);
  let k = 0;
  for (let i = 0; i < lines.length; i++) {
    while (k < inputLines.length && !keepMask[k]) k++;
    if (k < inputLines.length && lines[i] === inputLines[k]) from[i] = k++;
  }
  return { lines, from };
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

configureCore({ analysisCache: false });
const pruner = createPruner();
const modes: [string, object][] = [
  ['ratio 4', { ratio: 4 }],
  ['ratio 8', { ratio: 8 }],
  ['adaptive', {}],
];
let compared = 0;
let disagreeHasError = 0;
let disagreeRows = 0;
let disagreeTree = 0;
let withErrors = 0;
let freshMs = 0;
let reparseMs = 0;
for (const f of files()) {
  const lang = normalizeLanguage(detectLanguage(f.path, f.code));
  if (!(await ensureGrammar(lang))) continue;
  const parser = loadedParser(lang);
  if (!parser) continue;
  const inputLines = f.code.split('\n');
  let input: ParsedLines | null = null;
  try {
    input = parseLines(parser, inputLines, lang);
    if (!input) continue;
    for (const [, opts] of modes) {
      const r = await pruner.prune({ code: f.code, query: f.query, path: f.path, ...opts });
      const out = outputFrom(inputLines, r.keepMask, r.text);
      const damaged = {
        lines: out.lines.filter((_, i) => out.from[i]! < 0 || i % 3 !== 1),
        from: Int32Array.from(out.from.filter((j, i) => j < 0 || i % 3 !== 1)),
      };
      for (const v of [out, damaged]) {
        const text = v.lines.join('\n');
        let t = cpu();
        const fresh = parseText(parser, text, lang);
        freshMs += cpu() - t;
        t = cpu();
        const again = reparseLines(parser, input, v.lines, v.from);
        reparseMs += cpu() - t;
        if (!fresh || !again) throw new Error(`${f.path}: a parse failed`);
        compared++;
        if (fresh.rootNode.hasError) withErrors++;
        if (fresh.rootNode.hasError !== again.rootNode.hasError) disagreeHasError++;
        if (fresh.rootNode.toString() !== again.rootNode.toString()) disagreeTree++;
        fresh.delete();
        again.delete();
        const rowsFresh = syntaxErrorRows(text, lang, 4);
        const rowsAgain = syntaxErrorRows(text, lang, 4, { lines: v.lines, input, from: v.from });
        if (JSON.stringify(rowsFresh) !== JSON.stringify(rowsAgain)) {
          disagreeRows++;
          process.stderr.write(`${f.path}: error rows ${JSON.stringify(rowsFresh)} fresh, ${JSON.stringify(rowsAgain)} re-parsed\n`);
        }
      }
    }
  } finally {
    input?.tree.delete();
  }
}
console.log(
  JSON.stringify(
    {
      compared,
      withErrors,
      disagreements: { hasError: disagreeHasError, errorRows: disagreeRows, tree: disagreeTree },
      cpuMs: { fresh: Math.round(freshMs), reparsed: Math.round(reparseMs), ratio: +(reparseMs / freshMs).toFixed(3) },
    },
    null,
    2,
  ),
);
