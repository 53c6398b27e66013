import { describe, expect, it } from 'vitest';
import { plotPoints, renderPlotSvg } from '../../src/bench/plot.js';
import type { ResultRow } from '../../src/bench/runner.js';

function row(method: string, budget: string, recall: number | null, compression: number | null): ResultRow {
  return {
    suite: 's',
    method,
    budget,
    errors: 0,
    files: 1,
    recall_micro: recall,
    recall_file_mean: recall,
    files_all_kept: null,
    hunks_all_kept: null,
    compression_gold: compression,
    compression_distractor: null,
    compression_all: compression,
    token_saving: null,
    valid_rate: null,
    latency_ms_p50: 1,
    latency_ms_p95: 1,
  };
}

describe('plot', () => {
  it('plots every method/budget with a recall and a compression, skipping the rest', () => {
    const pts = plotPoints([row('skim', '4x', 0.9, 4), row('bm25', '4x', 0.6, 4), row('x', 'adaptive', null, 2)]);
    expect(pts.map((p) => p.method)).toEqual(['skim', 'bm25']);
  });

  it('renders an SVG through vega', async () => {
    const svg = await renderPlotSvg([row('skim', '4x', 0.9, 4), row('skim', '8x', 0.8, 8), row('bm25', '4x', 0.6, 4)]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('skim');
    expect(svg).toContain('bm25');
  });
});
