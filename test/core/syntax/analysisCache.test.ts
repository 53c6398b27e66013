/**
 * The analysis cache (src/core/syntax/analysisCache.ts): a text analysed before reuses its syntax
 * index, and the results are the same as from a fresh analysis, for other questions and modes too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingest } from '../../../src/core/ingest/ingest.js';
import { createPruner } from '../../../src/core/prune.js';
import { configureCore } from '../../../src/core/settings.js';
import { analyse } from '../../../src/core/syntax/analyse.js';
import { clearAnalysisCache } from '../../../src/core/syntax/analysisCache.js';
import { detectLanguage } from '../../../src/core/syntax/index.js';
import type { PruneRequest } from '../../../src/core/types.js';

const code = readFileSync(path.resolve(__dirname, '../../../examples/logging.py'), 'utf8');
const pruner = createPruner({ scorer: 'heuristic' });

describe('analysis cache', () => {
  it('hands the same index to a second analysis of the same text', async () => {
    clearAnalysisCache();
    const doc = ingest(code, { path: 'logging.py', detectLanguage });
    const a = await analyse(doc, code, []);
    const b = await analyse(ingest(code, { path: 'logging.py', detectLanguage }), code, []);
    expect(b[0]!.syntax).toBe(a[0]!.syntax);
    expect(a[0]!.syntax.hasGrammar).toBe(true);
    // another text: another index
    const c = await analyse(ingest(`${code}\nx = 1\n`, { path: 'logging.py', detectLanguage }), `${code}\nx = 1\n`, []);
    expect(c[0]!.syntax).not.toBe(a[0]!.syntax);
  });

  it('is off when the core is configured without it (SKIM_ANALYSIS_CACHE=0 at the edges)', async () => {
    clearAnalysisCache();
    configureCore({ analysisCache: false });
    try {
      const a = await analyse(ingest(code, { path: 'logging.py', detectLanguage }), code, []);
      const b = await analyse(ingest(code, { path: 'logging.py', detectLanguage }), code, []);
      expect(b[0]!.syntax).not.toBe(a[0]!.syntax);
      expect(b[0]!.syntax).toEqual(a[0]!.syntax);
    } finally {
      configureCore();
    }
  });

  it('gives the results of a fresh analysis, whatever ran before', async () => {
    const reqs: PruneRequest[] = [
      { code, path: 'logging.py', query: 'caplog.clear() records replaced instead of cleared' },
      { code, path: 'logging.py', query: 'LogCaptureHandler emit', ratio: 4 },
      { code, path: 'logging.py', query: 'set_level of the root logger', maxChars: 3000 },
      { code, path: 'logging.py', query: 'caplog.clear() records replaced instead of cleared', explain: true },
    ];
    const fresh = [];
    for (const req of reqs) {
      clearAnalysisCache();
      fresh.push(await pruner.prune(req));
    }
    clearAnalysisCache();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < reqs.length; i++) {
        const { ms: _a, ...got } = await pruner.prune(reqs[i]!);
        const { ms: _b, ...want } = fresh[i]!;
        expect(got).toEqual(want);
      }
    }
  });
});
