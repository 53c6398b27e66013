/**
 * What a prune of a file it has never seen does, and where its CPU goes once the process is warm,
 * on the distinct 1,000-line bodies of the serving load test (the analysis cache off):
 *
 *   1. counts per prune (src/core/work.ts), by mode: texts given to tree-sitter and their
 *      characters per input character (the input once; the pruned output when the syntax fix
 *      checks it), characters given to the o200k tokenizer per input character;
 *   2. CPU ms per file of each stage run alone, after the process has pruned the other half of the
 *      bodies `--warm` times (JIT and WebAssembly tiers warm, as in a server that has run a while):
 *      tree-sitter parse, the syntax-index walk, the line features, the model's two stages and
 *      token counting of the input, against the whole prune() of the same files.
 *
 *   npx tsx scripts/prune-stages.ts [--files 150] [--passes 3] [--warm 2]
 *
 * Stage figures are the mean of the passes after the first; the machine is shared, so compare
 * shares within one run, not figures across runs.
 */

import { NUM_FEATURES } from '../src/core/features/columns.js';
import { contextFeatures, withContext } from '../src/core/features/contextFeatures.js';
import { lineFeatures } from '../src/core/features/lineFeatures.js';
import { analyzeQuery } from '../src/core/features/queryAnalysis.js';
import { loadDefaultScorer } from '../src/core/model/index.js';
import { createPruner } from '../src/core/prune.js';
import { configureCore } from '../src/core/settings.js';
import { ensureGrammar, loadedParser } from '../src/core/syntax/grammars.js';
import { detectLanguage, normalizeLanguage } from '../src/core/syntax/index.js';
import { grammarSpec } from '../src/core/syntax/lang/index.js';
import { parseText } from '../src/core/syntax/parse.js';
import { buildSyntaxIndex } from '../src/core/syntax/syntaxIndex.js';
import { indexTree } from '../src/core/syntax/walker.js';
import { countTokens } from '../src/core/tokens/count.js';
import { workSince, workSnapshot } from '../src/core/work.js';
import { distinctInputs } from '../src/server/loadTest.js';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const files = opt('--files', 150);
const passes = Math.max(2, opt('--passes', 3));
const warmRounds = opt('--warm', 2);

configureCore({ analysisCache: false });
const all = distinctInputs(1000);
const measured = all.filter((_, i) => i % 2 === 1).slice(0, files);
const warm = all.filter((_, i) => i % 2 === 0);
const pruner = createPruner();
const scorer = loadDefaultScorer();
if (!scorer) throw new Error('the shipped model is not installed');
const { model, bridge, context } = scorer.loaded;

// 1. counts
console.log(`${measured.length} distinct 1,000-line files (${warm.length} others for warm-up), analysis cache off\n`);
console.log('mode | parses per prune | parsed chars per input char | tokenized chars per input char');
console.log('---|---:|---:|---:');
for (const [name, mode] of [
  ['default', {}],
  ['ratio 4', { ratio: 4 }],
  ['ratio 8', { ratio: 8 }],
] as const) {
  let parses = 0;
  let parsed = 0;
  let tokenized = 0;
  let chars = 0;
  for (const i of measured) {
    const before = workSnapshot();
    await pruner.prune({ code: i.code, query: i.query, path: i.path, ...mode });
    const w = workSince(before);
    parses += w.parses;
    parsed += w.parsedChars;
    tokenized += w.tokenizedChars;
    chars += i.code.length;
  }
  console.log(`${name} | ${(parses / measured.length).toFixed(2)} | ${(parsed / chars).toFixed(3)} | ${(tokenized / chars).toFixed(3)}`);
}

// 2. stages, warm
for (let r = 0; r < warmRounds; r++) for (const i of warm) await pruner.prune({ code: i.code, query: i.query, path: i.path });
const prepared = [];
for (const i of measured) {
  const language = normalizeLanguage(detectLanguage(i.path, i.code));
  await ensureGrammar(language);
  prepared.push({ ...i, language, lines: i.code.split('\n'), parser: loadedParser(language), spec: grammarSpec(language) });
}
const stages = ['prune()', 'parse', 'walk', 'features', 'model stage 1', 'context features + stage 2', 'token count of the input'] as const;
const sums = new Map<string, number>(stages.map((s) => [s, 0]));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let counted = 0;
for (let pass = 0; pass < passes; pass++) {
  const add = (stage: (typeof stages)[number], ms: number) => {
    if (pass > 0) sums.set(stage, sums.get(stage)! + ms);
  };
  for (const i of prepared) {
    let t = cpu();
    await pruner.prune({ code: i.code, query: i.query, path: i.path });
    add('prune()', cpu() - t);
    let syntax = buildSyntaxIndex([], 'text');
    if (i.parser && i.spec) {
      t = cpu();
      const tree = parseText(i.parser, i.code, i.language);
      add('parse', cpu() - t);
      if (tree) {
        t = cpu();
        syntax = indexTree(tree, i.lines, i.spec, i.language);
        add('walk', cpu() - t);
        tree.delete();
      }
    } else syntax = buildSyntaxIndex(i.lines, i.language);
    const n = i.lines.length;
    t = cpu();
    const X = lineFeatures({ query: i.query, lines: i.lines, syntax, language: i.language, path: i.path }, { bridge }, analyzeQuery(i.query, bridge));
    add('features', cpu() - t);
    t = cpu();
    const first = model.infer(X, n, false, !context);
    add('model stage 1', cpu() - t);
    if (context) {
      t = cpu();
      context.infer(withContext(X, NUM_FEATURES, contextFeatures(first.keep, first.docScore, syntax, n), n), n);
      add('context features + stage 2', cpu() - t);
    }
    t = cpu();
    // (a copy: the counter remembers large texts it has counted)
    countTokens(` ${i.code}`);
    add('token count of the input', cpu() - t);
    if (pass > 0) counted++;
  }
}
const whole = sums.get('prune()')! / counted;
console.log(`\nCPU ms per file, warm (mean of ${passes - 1} passes after the first), and share of prune():`);
console.log('stage | ms | share');
console.log('---|---:|---:');
for (const s of stages) {
  const ms = sums.get(s)! / counted;
  console.log(`${s} | ${ms.toFixed(2)} | ${s === 'prune()' ? '' : `${((100 * ms) / whole).toFixed(0)}%`}`);
}
