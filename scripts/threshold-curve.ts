/**
 * What threshold mode costs an agent, τ by τ: on the held-back teacher queries (the repositories
 * `isTeacherValRepo` keeps out of training), each query reads its gold file and a distractor of
 * the same repository through `prune()` at τ. Per τ: the share of answer lines kept, the share of
 * queries that keep every answer line, how much smaller gold and distractor files come back, and
 * the tokens an agent reads per query when a lost answer line costs a re-read of the whole gold
 * file plus one turn (the rule of the agent-run benchmark). In a run every read stays in the
 * context for the turns after it, so per turn a lost read costs the file again plus the context of
 * the extra turn spread over those turns: `--turn-tokens` (default 440: on trajectories-dev the
 * context before a read's next turn averages 13,332 tokens and 30.1 turns follow a read). Prints a
 * Markdown table; `--svg FILE` draws the curve (needs the optional vega packages, as `skim bench
 * --plot`).
 *
 *   npx tsx scripts/threshold-curve.ts --model models/default \
 *     --data ../shared/data/teacher-train.jsonl.gz --data data/teacher/cases.jsonl.gz [--svg curve.svg]
 */
import { writeFileSync } from 'node:fs';
import { renderThresholdCurveSvg, type ThresholdPoint } from '../src/bench/plot.js';
import { createLearnedScorer } from '../src/core/model/index.js';
import { pruneWith } from '../src/core/prune.js';
import { isTeacherValRepo, type LabeledFile, readCases } from '../src/train/datasets.js';

const SCALES = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16];
const TURN_TOKENS = 440;

function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === name && process.argv[i + 1] ? [process.argv[i + 1]!] : []));
}

const modelDir = args('--model')[0] ?? 'models/default';
const turnTokens = Number(args('--turn-tokens')[0] ?? TURN_TOKENS);
const scorer = createLearnedScorer(modelDir);
if (!scorer) throw new Error(`no model in ${modelDir}`);
const files: LabeledFile[] = [];
for (const path of args('--data')) files.push(...(await readCases(path, 'teacher')).filter((f) => isTeacherValRepo(f.repo)));
// one query = its gold file and its distractor (ids share the case id before ':')
const queries = new Map<string, LabeledFile[]>();
for (const f of files) {
  const id = f.id.slice(0, f.id.indexOf(':'));
  queries.set(id, [...(queries.get(id) ?? []), f]);
}

const points: ThresholdPoint[] = [];
for (const scale of SCALES) {
  const tau = scorer.threshold * scale;
  let answer = 0;
  let answerKept = 0;
  let whole = 0;
  let goalQueries = 0;
  const tokens = { goldIn: 0, goldOut: 0, distIn: 0, distOut: 0, reread: 0 };
  for (const parts of queries.values()) {
    let lost = false;
    let goldTokens = 0;
    for (const f of parts) {
      const r = await pruneWith(scorer, { code: f.lines.join('\n') + '\n', query: f.query, language: f.lang, threshold: tau });
      if (f.role === 'gold') {
        tokens.goldIn += r.tokensIn;
        tokens.goldOut += r.tokensOut;
        goldTokens = r.tokensIn;
        for (const i of f.agg) {
          answer++;
          if (r.keepMask[i]) answerKept++;
          else lost = true;
        }
      } else {
        tokens.distIn += r.tokensIn;
        tokens.distOut += r.tokensOut;
      }
    }
    goalQueries++;
    if (!lost) whole++;
    else tokens.reread += goldTokens + turnTokens;
  }
  const read = tokens.goldOut + tokens.distOut + tokens.reread;
  points.push({
    scale,
    tau,
    recall: answerKept / answer,
    allKept: whole / goalQueries,
    goldCompression: tokens.goldIn / tokens.goldOut,
    distractorCompression: tokens.distIn / Math.max(1, tokens.distOut),
    tokensPerQuery: read / goalQueries,
    unprunedPerQuery: (tokens.goldIn + tokens.distIn) / goalQueries,
  });
  console.error(`τ x${scale} done`);
}

const best = points.reduce((a, b) => (b.tokensPerQuery < a.tokensPerQuery ? b : a));
console.log(
  `Held-back teacher queries: ${queries.size} (${files.filter((f) => f.role === 'gold').length} gold files), model ${modelDir}, calibrated τ ${scorer.threshold}, a lost read charged the gold file + ${turnTokens} tokens\n`,
);
console.log(
  '| τ (x calibrated) | answer lines kept | queries keeping every answer line | gold compr. | distractor compr. | tokens read per query, re-reads included (unpruned) |',
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const p of points) {
  const mark = p === best ? ' (fewest)' : '';
  console.log(
    `| ${p.tau.toPrecision(3)} (x${p.scale}) | ${p.recall.toFixed(3)} | ${p.allKept.toFixed(3)} | ${p.goldCompression.toFixed(2)}x | ${p.distractorCompression.toFixed(2)}x | ${Math.round(p.tokensPerQuery)}${mark} (${Math.round(p.unprunedPerQuery)}) |`,
  );
}
const svg = args('--svg')[0];
if (svg) writeFileSync(svg, await renderThresholdCurveSvg(points));
