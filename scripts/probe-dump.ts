/**
 * Dumps what the learner sees, for probes outside the trainer (scripts/probes/*.py): the line
 * features of the shipped recipe's training and validation examples (same data, same choice of
 * commit samples and distractors, the same cross-fitted bridge) and of swebench-dev and
 * goalhint-dev's files (the full bridge, as at inference), with the shipped model's stage-1 and
 * stage-2 marginals and document scores. Files written to OUT:
 *   <set>.X.f32   rows x 64 line features (float32, row-major)
 *   <set>.s1.f32 / <set>.s2.f32   per-line marginals of stage 1 / stage 2
 *   <set>.meta.json   per file: row offset, lines, labelled lines, source, query kind, role,
 *                     weight, characters per line, document scores
 * With TERMVEC=dir (term vectors of scripts/corpus/fit-term-vectors.py), also writes candidate
 * features as <set>.E.f32 (rows x 4; scripts/probes/mlp_capacity.py appends them with EXTRA=1).
 * With --stage3, also trains a third auto-context stage (the context features of stage 2's
 * marginals, same width and epochs as the shipped stages) and writes its marginals as <set>.s3.f32.
 *   npx tsx scripts/probe-dump.ts OUT [--stage3]      (about 5 minutes; 12 with --stage3; 1.6 GB)
 * Run from the repository root with ../shared beside it. Then, e.g.:
 *   python3 scripts/probes/topk_recall.py OUT s1,s2,s3 val,swebench-dev,goalhint-dev
 *   python3 scripts/probes/mlp_capacity.py OUT 48 4
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { contextFeatures, NUM_CONTEXT_FEATURES, withContext } from '../src/core/features/contextFeatures.js';
import { NUM_FEATURES } from '../src/core/features/lineFeatures.js';
import { loadModel } from '../src/core/model/io.js';
import type { LamrModel } from '../src/core/model/lamr.js';
import { loadEvalSets } from '../src/train/evaluate.js';
import { charCosts } from '../src/train/metrics.js';
import { readTrainingFiles } from '../src/train/pipeline.js';
import { buildExamples, contextExamples, DEFAULT_WEIGHTS, type Example, fitBridges, prepareFiles } from '../src/train/prepare.js';
import { loadSyntaxSource } from '../src/train/syntaxSource.js';
import { DEFAULT_TRAIN, train } from '../src/train/trainer.js';
import { loadTermVectors, TERMVEC_FEATURES, termVectorFeatures } from './corpus/termVectors.js';

const out = process.argv[2];
if (!out || out.startsWith('-')) {
  console.error('usage: npx tsx scripts/probe-dump.ts OUT [--stage3]');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const log = (m: string) => console.error(m);

// the shipped recipe (models/MODEL_CARD.md, "Training")
const { files, bridgeOnly } = await readTrainingFiles({
  data: ['../shared/data/commits.jsonl.gz', '../shared/data/teacher-train.jsonl.gz'],
  maxSamples: 8000,
  commitDistractors: 1,
  log,
});
const syntax = await loadSyntaxSource();
const { prepared } = await prepareFiles(files, syntax);
const bridges = fitBridges(prepared, bridgeOnly);
const examples = buildExamples(prepared, bridges, DEFAULT_WEIGHTS);
const trainEx = examples.filter((e) => e.file.split === 'train');
const valEx = examples.filter((e) => e.file.split === 'val');
const evalEx: [string, Example[]][] = [];
for (const s of await loadEvalSets({ swebench: '../shared/bench/swebench-dev.jsonl.gz', goalhint: '../shared/bench/goalhint-dev.jsonl.gz' })) {
  const { prepared: p } = await prepareFiles(s.files, syntax);
  evalEx.push([s.name, buildExamples(p, { ...bridges, folds: [bridges.full, bridges.full] }, DEFAULT_WEIGHTS)]);
}
log(`examples: train ${trainEx.length}, val ${valEx.length}, ${evalEx.map(([n, e]) => `${n} ${e.length}`).join(', ')}`);

const shipped = loadModel('models/default');
const stage2 = shipped.context;
if (!stage2) throw new Error('models/default has no context stage');

/** Per example: stage-1 and stage-2 results, and the line features with stage 2's context appended. */
function stages(ex: Example[]) {
  const withStage1 = contextExamples(shipped.model, ex);
  return ex.map((e, k) => {
    const r1 = shipped.model.infer(e.X, e.n, false, false);
    const r2 = stage2!.infer(withStage1[k].X, e.n, false, false);
    const X3 = Float32Array.from(withContext(e.X, NUM_FEATURES, contextFeatures(r2.keep, r2.docScore, e.syntax, e.n), e.n));
    return { r1, r2, X3 };
  });
}

const termVectors = process.env.TERMVEC ? loadTermVectors(process.env.TERMVEC) : null;

let stage3: LamrModel | undefined;
if (process.argv.includes('--stage3')) {
  const asStage3 = (ex: Example[]) => stages(ex).map((s, k) => ({ ...ex[k], X: s.X3 }));
  const cfg = { ...DEFAULT_TRAIN, hidden: shipped.model.H, epochs: 4, seed: 9 };
  const fit = train(asStage3(trainEx), asStage3(valEx), cfg, NUM_FEATURES + NUM_CONTEXT_FEATURES, {
    onEpoch: (r) =>
      log(
        `stage 3 epoch ${r.epoch}: selection ${r.select.toFixed(4)}; ${Object.entries(r.val)
          .map(([g, v]) => `${g} R@4x ${v.recall4.toFixed(3)} R@8x ${v.recall8.toFixed(3)}`)
          .join('; ')}`,
      ),
  });
  log(`stage 3 best epoch ${fit.best}`);
  stage3 = fit.model;
}

function dump(name: string, ex: Example[]) {
  const F = NUM_FEATURES;
  let rows = 0;
  for (const e of ex) rows += e.n;
  const X = new Float32Array(rows * F);
  const s1 = new Float32Array(rows);
  const s2 = new Float32Array(rows);
  const s3 = new Float32Array(rows);
  const st = stages(ex);
  let off = 0;
  const meta = ex.map((e, k) => {
    const { r1, r2, X3 } = st[k];
    X.set(e.X, off * F);
    s1.set(r1.keep, off);
    s2.set(r2.keep, off);
    if (stage3) s3.set(stage3.infer(X3, e.n, false, false).keep, off);
    const agg: number[] = [];
    e.labels.agg.forEach((v, i) => v && agg.push(i));
    const m = {
      off,
      n: e.n,
      id: e.file.id,
      repo: e.file.repo,
      src: e.file.source,
      kind: e.file.queryKind,
      role: e.file.role,
      split: e.file.split,
      w: e.weight,
      lab: agg,
      chars: Array.from(charCosts(e.file.lines)),
      doc1: r1.docScore,
      doc2: r2.docScore,
    };
    off += e.n;
    return m;
  });
  writeFileSync(`${out}/${name}.X.f32`, Buffer.from(X.buffer));
  if (termVectors) {
    // candidate features (TERMVEC=dir): <set>.E.f32, rows x E, for the probes' EXTRA=1
    const E = new Float32Array(rows * TERMVEC_FEATURES.length);
    let o = 0;
    for (const e of ex) {
      E.set(termVectorFeatures(termVectors, e.file.query, e.file.lines), o * TERMVEC_FEATURES.length);
      o += e.n;
    }
    writeFileSync(`${out}/${name}.E.f32`, Buffer.from(E.buffer));
  }
  writeFileSync(`${out}/${name}.s1.f32`, Buffer.from(s1.buffer));
  writeFileSync(`${out}/${name}.s2.f32`, Buffer.from(s2.buffer));
  if (stage3) writeFileSync(`${out}/${name}.s3.f32`, Buffer.from(s3.buffer));
  writeFileSync(`${out}/${name}.meta.json`, JSON.stringify({ F, E: termVectors ? TERMVEC_FEATURES.length : 0, rows, files: meta }));
  log(`${name}: ${ex.length} files, ${rows} lines`);
}
dump('train', trainEx);
dump('val', valEx);
for (const [name, ex] of evalEx) dump(name, ex);
