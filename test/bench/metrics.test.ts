import { describe, expect, it } from 'vitest';
import { byLanguage, type FileRecord, percentile, scoreLabels, summarize, summarizeReplay } from '../../src/bench/metrics.js';

function rec(p: Partial<FileRecord>): FileRecord {
  return { role: 'gold', language: 'python', labels: 0, labelsKept: 0, hunks: 0, hunksKept: 0, tokensIn: 100, tokensOut: 100, valid: null, ms: 1, ...p };
}

describe('metrics', () => {
  it('scores kept labels and whole hunks from a keep mask', () => {
    const mask = Uint8Array.from([1, 1, 0, 1, 0, 0]);
    expect(scoreLabels(mask, [1, 2, 3, 4, 9], [[1, 2], [3, 4], [9]])).toEqual({ labels: 5, labelsKept: 3, hunks: 3, hunksKept: 1 });
  });

  it('aggregates recall, compression, validity and latency with known answers', () => {
    const s = summarize([
      rec({ labels: 4, labelsKept: 4, hunks: 2, hunksKept: 2, tokensIn: 400, tokensOut: 100, valid: true, ms: 10 }),
      rec({ labels: 6, labelsKept: 3, hunks: 1, hunksKept: 0, tokensIn: 200, tokensOut: 100, valid: false, ms: 20 }),
      rec({ role: 'distractor', tokensIn: 400, tokensOut: 50, ms: 30 }),
    ]);
    expect(s.files).toBe(3);
    expect(s.recall_micro).toBeCloseTo(7 / 10);
    expect(s.recall_file_mean).toBeCloseTo((1 + 0.5) / 2);
    expect(s.files_all_kept).toBeCloseTo(0.5);
    expect(s.hunks_all_kept).toBeCloseTo(2 / 3);
    expect(s.compression_gold).toBeCloseTo(600 / 200);
    expect(s.compression_distractor).toBeCloseTo(400 / 50);
    expect(s.compression_all).toBeCloseTo(1000 / 250);
    expect(s.token_saving).toBeCloseTo(0.75);
    expect(s.valid_rate).toBeCloseTo(0.5);
    expect(s.latency_ms_p50).toBe(20);
    expect(s.latency_ms_p95).toBe(30);
  });

  it('uses null where a metric does not apply', () => {
    const s = summarize([rec({ role: 'distractor' })]);
    expect(s.recall_micro).toBeNull();
    expect(s.hunks_all_kept).toBeNull();
    expect(s.compression_gold).toBeNull();
    expect(s.valid_rate).toBeNull();
    expect(s.compression_distractor).toBe(1);
  });

  it('charges a full re-read for replay observations that lost a gold line', () => {
    const r = summarizeReplay([
      rec({ runId: 'a', labels: 1, labelsKept: 1, tokensIn: 100, tokensOut: 20 }),
      rec({ runId: 'a', labels: 2, labelsKept: 1, tokensIn: 100, tokensOut: 20 }),
      rec({ runId: 'b', role: 'distractor', tokensIn: 200, tokensOut: 20 }),
    ]);
    expect(r.reads).toBe(3);
    expect(r.runs).toBe(2);
    expect(r.token_saving).toBeCloseTo(1 - 60 / 400);
    expect(r.token_saving_net_rereads).toBeCloseTo(1 - 160 / 400);
    expect(r.reread_rate).toBeCloseTo(0.5);
    expect(r.run_saving_mean).toBeCloseTo((0.8 + 0.9) / 2);
    expect(r.recall_gold_obs).toBeCloseTo(2 / 3);
  });

  it('nearest-rank percentiles', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
  });

  it('breaks figures down by language', () => {
    const b = byLanguage([rec({ language: 'go', labels: 2, labelsKept: 1 }), rec({ language: 'ruby', labels: 1, labelsKept: 1 })]);
    expect(Object.keys(b)).toEqual(['go', 'ruby']);
    expect(b.go.recall_micro).toBeCloseTo(0.5);
    expect(b.ruby.recall_micro).toBe(1);
  });
});
