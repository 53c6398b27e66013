/** runTraining end to end on a small mined history: widths, and --init without --hidden. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../src/core/model/io.js';
import { mineRepository } from '../../src/data/mine.js';
import { runTraining } from '../../src/train/pipeline.js';
import { createHistoryFixture } from '../data/gitRepo.js';

const quiet = { log: () => {}, progress: () => ({ update: () => {}, stop: () => {} }) };

describe('runTraining', () => {
  let repo: string;
  let tmp: string;
  let data: string;
  let remove: () => void;
  beforeAll(async () => {
    ({ repo, tmp, remove } = createHistoryFixture(200, 'skim-train-'));
    data = join(tmp, 'mined.jsonl');
    await mineRepository({ repo, out: data });
  });
  afterAll(() => remove());

  it("trains each stage at its own width, and --init without --hidden takes the init model's", async () => {
    const first = join(tmp, 'first');
    await runTraining({ ...quiet, data: [data], out: first, epochs: 1, maxSamples: 60, hidden: 6, contextHidden: 10 });
    const a = loadModel(first);
    expect(a.model.H).toBe(6);
    expect(a.context?.H).toBe(10);
    const second = join(tmp, 'second');
    await runTraining({ ...quiet, data: [data], out: second, epochs: 1, maxSamples: 60, init: first, contextStage: false, distractorWeight: 3 });
    expect(loadModel(second).model.H).toBe(6);
    // the calibration's distractor weight is recorded where the threshold is
    const report = JSON.parse(readFileSync(join(second, 'train-report.json'), 'utf8'));
    expect(report.threshold.distractorWeight).toBe(3);
    expect(JSON.parse(readFileSync(join(second, 'model.json'), 'utf8')).thresholdCalibration).toMatch(/distractor characters weighted 3x\)/);
    expect(JSON.parse(readFileSync(join(first, 'model.json'), 'utf8')).thresholdCalibration).toMatch(/weighted 1\.8x, their excess in real reads/);
    // an explicit width that differs from the init model's is a usage error, said plainly
    await expect(runTraining({ ...quiet, data: [data], out: join(tmp, 'third'), epochs: 1, maxSamples: 60, init: first, hidden: 8 })).rejects.toThrow(
      /6 hidden units, not 8/,
    );
  }, 120_000);
});
