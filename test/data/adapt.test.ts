import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUM_FEATURES } from '../../src/core/features/columns.js';
import { NUM_CONTEXT_FEATURES } from '../../src/core/features/contextFeatures.js';
import { loadModel, saveModel } from '../../src/core/model/io.js';
import { LamrModel } from '../../src/core/model/lamr.js';
import { baseScorer, compareOnVal, fineTune, type RepoSamples, readRepoSamples } from '../../src/data/adapt.js';
import { mineRepository } from '../../src/data/mine.js';
import { initParams } from '../../src/train/lamrLoss.js';
import { createHistoryFixture } from './gitRepo.js';

describe('fine-tuning from an init model', () => {
  let repo: string;
  let tmp: string;
  let samples: RepoSamples;
  let remove: () => void;
  beforeAll(async () => {
    ({ repo, tmp, remove } = createHistoryFixture(300, 'skim-adapt-'));
    await mineRepository({ repo, out: join(tmp, 'mined.jsonl') });
    samples = await readRepoSamples(join(tmp, 'mined.jsonl'));
  });
  afterAll(() => remove());

  it('keeps the init bridge, records its origin, re-sets the threshold, and compares on val', async () => {
    expect(samples.train.length).toBeGreaterThan(200);
    const base = join(tmp, 'base');
    await fineTune({ train: samples.train, out: base, epochs: 1, maxTrain: 60 });
    // give the base what a shipped model has after its first stage: a context stage, a lift, a floor
    const b = loadModel(base);
    // (wider than the first stage, as `skim train --context-hidden` makes it)
    const ctx = new LamrModel(NUM_FEATURES + NUM_CONTEXT_FEATURES, 2 * b.model.H, b.model.mode);
    initParams(ctx, 3);
    // and a loss recipe of its own, which fine-tuning must reuse
    const loss = { ...b.header.loss!, lambda: 0.4, rank: 0.05 };
    saveModel(base, b.model, b.bridge, { ...b.header, lift: { window: 2, alpha: 0.9 }, relativeFloor: 0.02, loss }, ctx);
    const tuned = join(tmp, 'tuned');
    const r = await fineTune({ train: samples.train, init: base, out: tuned, epochs: 2, maxTrain: 120 });
    // 120 samples split by commit into fit and tune; a tune slice under 10 samples falls back to
    // selecting on the fit samples themselves (the slice depends on commit hashes, i.e. on git)
    if (r.tune === r.fit) expect(r.fit).toBe(120);
    else expect(r.fit + r.tune).toBe(120);
    expect(r.epochs.map((e) => e.epoch)).toEqual([0, 1, 2]); // epoch 0: the init model on the tune slice
    const m = loadModel(tuned);
    expect(m.header.fineTunedFrom).toBe(base);
    // what the init does after its first stage carries over
    expect(m.header.lift).toEqual({ window: 2, alpha: 0.9 });
    expect(m.header.relativeFloor).toBe(0.02);
    expect(m.header.loss).toEqual(loss);
    expect(m.context?.p.length).toBe(ctx.p.length); // fine-tuned, or the init's when that was better
    expect(m.context?.H).toBe(2 * m.model.H);
    expect(readFileSync(join(tuned, 'bridge.json'), 'utf8')).toBe(readFileSync(join(base, 'bridge.json'), 'utf8'));
    expect(m.header.threshold).toBeGreaterThan(0);
    expect(m.header.threshold).toBeLessThanOrEqual(1);
    // parameters moved away from the init, unless no epoch beat it on the tune slice
    if (r.bestEpoch === 0) expect(Array.from(m.model.p)).toEqual(Array.from(loadModel(base).model.p));
    else expect(Array.from(m.model.p)).not.toEqual(Array.from(loadModel(base).model.p));
    const cmp = await compareOnVal(samples.val, baseScorer(base), tuned);
    expect(cmp.before.name).toBe('shipped');
    expect(cmp.files).toBe(samples.val.filter((f) => f.agg.length > 0).length);
    for (const x of [cmp.before.r4, cmp.before.r8, cmp.after.r4, cmp.after.r8]) expect(x).toBeGreaterThanOrEqual(0);
    expect(cmp.after.r4).toBeGreaterThanOrEqual(cmp.after.r8); // a larger budget never recalls less
    expect(cmp.better).toBe((cmp.after.r4 + cmp.after.r8) / 2 > (cmp.before.r4 + cmp.before.r8) / 2);
  });
});
