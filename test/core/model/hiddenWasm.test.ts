/**
 * The WebAssembly hidden layer (src/core/model/hiddenWasm.ts) gives the JavaScript loop's values
 * bit for bit: random inputs (zeros, negative zeros, constant columns, odd widths) and the real
 * features of a file under the shipped model, both stages.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NUM_FEATURES } from '../../../src/core/features/columns.js';
import { contextFeatures, withContext } from '../../../src/core/features/contextFeatures.js';
import { lineFeatures } from '../../../src/core/features/lineFeatures.js';
import { analyzeQuery } from '../../../src/core/features/queryAnalysis.js';
import { hiddenKernel } from '../../../src/core/model/hiddenWasm.js';
import { loadDefaultScorer } from '../../../src/core/model/index.js';
import { LamrModel } from '../../../src/core/model/lamr.js';
import { configureCore } from '../../../src/core/settings.js';
import { buildSyntaxIndex, ensureGrammar } from '../../../src/core/syntax/index.js';
import { initParams } from '../../../src/train/lamrLoss.js';

const same = (a: Float64Array, b: Float64Array) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

describe('hidden layer in WebAssembly', () => {
  const kernel = hiddenKernel();

  it('compiles here', () => {
    expect(kernel).not.toBeNull();
  });

  it('is not used when the core is configured without it (SKIM_NO_WASM at the edges)', () => {
    configureCore({ wasmKernel: false });
    try {
      expect(hiddenKernel()).toBeNull();
    } finally {
      configureCore();
    }
    expect(hiddenKernel()).toBe(kernel);
  });

  it('equals the JavaScript loop on random inputs', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (const [F, H] of [
      [64, 48],
      [84, 48],
      [5, 3],
      [7, 1],
      [10, 8],
      [3, 17],
    ]) {
      const m = new LamrModel(F, H, 'lamr');
      initParams(m, Math.floor(rnd() * 1000));
      for (const n of [1, 2, 7, 300]) {
        const X = new Float64Array(n * F);
        for (let i = 0; i < X.length; i++) X[i] = rnd() < 0.5 ? 0 : rnd() < 0.1 ? -0 : (rnd() - 0.5) * 10 ** Math.floor(rnd() * 6 - 3);
        for (let f = 0; f < F; f += 3) for (let i = 0; i < n; i++) X[i * F + f] = 0.7; // columns constant over the lines
        expect(same(m.hidden(X, n, kernel), m.hidden(X, n, null))).toBe(true);
        expect(same(m.hidden(Float32Array.from(X), n, kernel), m.hidden(Float32Array.from(X), n, null))).toBe(true);
      }
    }
  });

  it('equals it on a real file under the shipped model, both stages', async () => {
    const s = loadDefaultScorer()!;
    const { model, context, bridge } = s.loaded;
    const code = readFileSync(path.resolve(__dirname, '../../../examples/logging.py'), 'utf8');
    const lines = code.split('\n');
    await ensureGrammar('python');
    const syntax = buildSyntaxIndex(lines, 'python');
    const query = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';
    const X = lineFeatures({ query, lines, syntax, language: 'python' }, { bridge }, analyzeQuery(query, bridge));
    const n = lines.length;
    expect(same(model.hidden(X, n, kernel), model.hidden(X, n, null))).toBe(true);
    const first = model.infer(X, n, false, false);
    const X2 = withContext(X, NUM_FEATURES, contextFeatures(first.keep, first.docScore, syntax, n), n);
    expect(same(context!.hidden(X2, n, kernel), context!.hidden(X2, n, null))).toBe(true);
  });
});
