/**
 * Recall against compression for every method, as an SVG: a vega-lite spec compiled to vega and
 * rendered headless with View.toSVG(). One point per method and budget, a line through each
 * method's budgets, one panel per suite.
 */
import type { TopLevelSpec } from 'vega-lite';
import { loadOptional } from './optional.js';
import type { ResultRow } from './runner.js';

export interface PlotPoint {
  suite: string;
  method: string;
  budget: string;
  compression: number;
  recall: number;
}

export function plotPoints(rows: ResultRow[]): PlotPoint[] {
  const pts: PlotPoint[] = [];
  for (const r of rows) {
    const compression = r.compression_gold ?? r.compression_all;
    if (compression === null || r.recall_micro === null) continue;
    pts.push({ suite: r.suite, method: r.method, budget: r.budget, compression, recall: r.recall_micro });
  }
  return pts;
}

const BUDGET_ORDER = ['natural', 'adaptive', '2x', '4x', '8x', '16x'];

/** Fixed colours so skim stands out and its ablations read as its family. */
const METHOD_COLORS: [string, string][] = [
  ['skim', '#d62728'],
  ['heuristic', '#ff9896'],
  ['no-repair', '#e377c2'],
  ['bm25', '#1f77b4'],
  ['outline', '#2ca02c'],
  ['repomix', '#ff7f0e'],
  ['head', '#bcbd22'],
  ['random', '#9467bd'],
  ['full', '#7f7f7f'],
];

export function plotSpec(points: PlotPoint[]): TopLevelSpec {
  const budgets = [...new Set(points.map((p) => p.budget))].sort((a, b) => BUDGET_ORDER.indexOf(a) - BUDGET_ORDER.indexOf(b) || a.localeCompare(b));
  const suites = [...new Set(points.map((p) => p.suite))];
  const methods = [...new Set(points.map((p) => p.method))];
  const known = METHOD_COLORS.filter(([m]) => methods.includes(m));
  const others = methods.filter((m) => !METHOD_COLORS.some(([k]) => k === m));
  const color = {
    field: 'method',
    type: 'nominal',
    scale: { domain: [...known.map(([m]) => m), ...others], range: [...known.map(([, c]) => c), ...others.map(() => '#17becf')] },
    legend: { title: 'method' },
  };
  const maxX = Math.max(2, ...points.map((p) => p.compression)) * 1.15;
  const layer = {
    layer: [
      {
        mark: { type: 'line', opacity: 0.5 },
        encoding: {
          x: {
            field: 'compression',
            type: 'quantitative',
            scale: { type: 'log', domain: [1, maxX], nice: false },
            title: 'compression on gold files (tokens in / out, log)',
          },
          y: { field: 'recall', type: 'quantitative', scale: { domain: [0, 1] }, title: 'recall of labelled lines (micro)' },
          color,
          order: { field: 'compression', type: 'quantitative' },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x: { field: 'compression', type: 'quantitative' },
          y: { field: 'recall', type: 'quantitative' },
          color,
          shape: { field: 'budget', type: 'nominal', scale: { domain: budgets }, legend: { title: 'budget' } },
          tooltip: [{ field: 'method' }, { field: 'budget' }, { field: 'recall', format: '.3f' }, { field: 'compression', format: '.2f' }],
        },
      },
    ],
  };
  const base = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', data: { values: points }, background: 'white' };
  if (suites.length > 1) {
    return {
      ...base,
      facet: { field: 'suite', type: 'nominal', title: null },
      columns: 2,
      spec: { width: 360, height: 260, ...layer },
    } as unknown as TopLevelSpec;
  }
  return { ...base, title: suites[0] ?? '', width: 480, height: 320, ...layer } as unknown as TopLevelSpec;
}

export async function renderPlotSvg(rows: ResultRow[]): Promise<string> {
  return renderSvg(plotSpec(plotPoints(rows)));
}

/** A vega-lite spec as SVG, rendered headless (vega and vega-lite are loaded for --plot only). */
async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, vegaLite] = await Promise.all([
    loadOptional<typeof import('vega')>('vega', '--plot'),
    loadOptional<typeof import('vega-lite')>('vega-lite', '--plot'),
  ]);
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Agent runs: for each method, read saving (x) against net saving of the whole runs (y), one
 * point per method and repository, labelled with the share of fix-line reads it lost.
 */
export async function renderTrajectoryPlotSvg(reports: import('./trajectoryBench.js').TrajectoryReport[]): Promise<string> {
  const values = reports.flatMap((rep) =>
    Object.entries({ 'all runs': rep.overall, ...rep.byRepo }).flatMap(([repo, rows]) =>
      rows
        .filter((r) => r.method !== 'none')
        .map((r) => ({ repo, method: r.method, read_saving: r.readSaving, net_saving: r.netSaving, lost: `${(100 * r.lostShare).toFixed(1)}% lost` })),
    ),
  );
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Whole agent runs: tokens saved against reads saved',
    data: { values },
    width: 360,
    height: 240,
    layer: [
      { mark: { type: 'rule', color: '#999' }, encoding: { y: { datum: 0 } } },
      {
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x: { field: 'read_saving', type: 'quantitative', title: 'read characters saved', axis: { format: '%' } },
          y: { field: 'net_saving', type: 'quantitative', title: 'net saving over the run', axis: { format: '%' } },
          color: { field: 'method', type: 'nominal' },
          shape: { field: 'repo', type: 'nominal' },
          tooltip: [{ field: 'method' }, { field: 'repo' }, { field: 'lost' }],
        },
      },
    ],
  };
  return renderSvg(spec);
}

/** One threshold of `scripts/threshold-curve.ts`: what threshold mode at τ keeps and costs. */
export interface ThresholdPoint {
  scale: number;
  tau: number;
  recall: number;
  allKept: number;
  goldCompression: number;
  distractorCompression: number;
  tokensPerQuery: number;
  unprunedPerQuery: number;
}

/** Threshold mode's trade-off: answer lines kept (x) against tokens an agent reads per query, re-reads included (y). */
export async function renderThresholdCurveSvg(points: ThresholdPoint[]): Promise<string> {
  const values = points.map((p) => ({ ...p, label: `x${p.scale}` }));
  const unpruned = points[0]?.unprunedPerQuery ?? 0;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Threshold mode: answer lines kept against tokens read (re-reads included)',
    data: { values },
    width: 360,
    height: 240,
    background: 'white',
    layer: [
      { mark: { type: 'rule', color: '#999', strokeDash: [4, 4] }, encoding: { y: { datum: unpruned } } },
      {
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'recall', type: 'quantitative', title: 'answer lines kept', scale: { zero: false } },
          y: { field: 'tokensPerQuery', type: 'quantitative', title: 'tokens read per query' },
        },
      },
      {
        mark: { type: 'text', dy: -10 },
        encoding: { x: { field: 'recall', type: 'quantitative' }, y: { field: 'tokensPerQuery', type: 'quantitative' }, text: { field: 'label' } },
      },
    ],
  };
  return renderSvg(spec);
}
