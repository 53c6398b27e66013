import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyBridge } from '../../../src/core/features/bridge.js';
import { NUM_FEATURES } from '../../../src/core/features/columns.js';
import { NUM_CONTEXT_FEATURES } from '../../../src/core/features/contextFeatures.js';
import { lineFeatures } from '../../../src/core/features/lineFeatures.js';
import { createLearnedScorer, defaultModelDir, loadDefaultScorer } from '../../../src/core/model/index.js';
import { loadModel, saveModel } from '../../../src/core/model/io.js';
import { LamrModel } from '../../../src/core/model/lamr.js';
import { initParams } from '../../../src/train/lamrLoss.js';
import { buildSimpleSyntaxIndex } from '../../helpers/simpleSyntax.js';

describe('createLearnedScorer', () => {
  it('returns null when the weights are missing', () => {
    expect(createLearnedScorer(join(tmpdir(), 'skim-no-such-model'))).toBeNull();
  });

  it('loads saved weights and scores a segment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skim-model-'));
    try {
      const m = new LamrModel(NUM_FEATURES, 8, 'lamr');
      initParams(m, 4);
      saveModel(dir, m, emptyBridge(), { threshold: 0.2 });
      const s = createLearnedScorer(dir);
      expect(s).not.toBeNull();
      expect(s!.threshold).toBe(0.2);
      const lines = ['def f(x):', '    return x + 1', '', 'def g():', '    pass'];
      const out = s!.score({ query: 'what does f return', lines, syntax: buildSimpleSyntaxIndex(lines, 'python'), language: 'python' });
      expect(out.keep.length).toBe(5);
      expect(out.gateSemantic!.length).toBe(5);
      expect(out.docScore).toBeGreaterThan(0);
      // float32 weights on disk: same predictions as the in-memory model rounded to float32
      const m32 = new LamrModel(NUM_FEATURES, 8, 'lamr', Float64Array.from(new Float32Array(m.p)));
      expect(s!.loaded.model.p).toEqual(m32.p);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs the context stage when the model has one, and can be told not to', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skim-model-'));
    try {
      const m = new LamrModel(NUM_FEATURES, 8, 'lamr');
      initParams(m, 4);
      const ctx = new LamrModel(NUM_FEATURES + NUM_CONTEXT_FEATURES, 8, 'lamr');
      initParams(ctx, 5);
      saveModel(dir, m, emptyBridge(), { threshold: 0.2, stage1Threshold: 0.3, stage1DocPower: 0 }, ctx);
      expect(loadModel(dir).context?.p).toEqual(Float64Array.from(new Float32Array(ctx.p)));
      const lines = ['def f(x):', '    return x + 1', '', 'def g():', '    pass'];
      const input = { query: 'what does f return', lines, syntax: buildSimpleSyntaxIndex(lines, 'python'), language: 'python' };
      const two = createLearnedScorer(dir)!;
      const one = createLearnedScorer(dir, { contextStage: false })!;
      expect(two.threshold).toBe(0.2);
      expect(one.threshold).toBe(0.3);
      const a = two.score(input).keep;
      const b = one.score(input).keep;
      expect(Array.from(a)).not.toEqual(Array.from(b));
      // stage 1 alone is exactly the first model
      const m32 = new LamrModel(NUM_FEATURES, 8, 'lamr', Float64Array.from(new Float32Array(m.p)));
      expect(Array.from(b)).toEqual(Array.from(m32.infer(lineFeatures(input, { bridge: emptyBridge() }), 5).keep));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the shipped models/default relative to the package, and the ablation model through its shared bridge', () => {
    expect(defaultModelDir()).toMatch(/models[\\/]default$/);
    const s = loadDefaultScorer();
    expect(s).not.toBeNull();
    expect(s!.threshold).toBeGreaterThan(0);
    const single = createLearnedScorer(join(defaultModelDir()!, '..', 'single-crf'));
    expect(single?.loaded.header.mode).toBe('single');
  });
});
