/**
 * The order test files start in: the longest first, so that neither worker is left with one of
 * them at the end while the other is idle (vitest's own order follows the durations of earlier runs
 * on this machine when it has them, and otherwise the files' sizes). With a seed
 * (`--sequence.seed=N`) the files run in an order shuffled by it instead, to show that no file
 * depends on the ones before it in its worker (the tests within a file keep their order: some build
 * on the one before, as a session does).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
// the same seed, the same order
import { mulberry32 } from '../src/train/lamrLoss.js';

/** The longest files, longest first (`npx vitest run --reporter=json`: endTime - startTime per file). */
const LONGEST = [
  // 63 s over all of ../shared (SKIM_TEST_CORPUS=shared, CI's run); a few seconds over the shipped slice
  'test/core/prune.property.test.ts',
  'test/cli/daemon.lifecycle.test.ts',
  'test/core/prune.fuzz.test.ts',
  'test/cli/daemon.answers.test.ts',
  'test/cli/cli.test.ts',
  'test/server/core.test.ts',
  'test/server/redisSessions.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { seed } = this.ctx.config.sequence;
    if (seed !== undefined) {
      const next = mulberry32(seed);
      const out = [...files].sort((a, b) => (a.moduleId < b.moduleId ? -1 : 1));
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    }
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((p) => f.moduleId.endsWith(p));
      return i === -1 ? LONGEST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
