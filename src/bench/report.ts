/** Markdown tables of a bench report: one main table per suite, plus replay and per-language tables. */

import type { Summary } from './metrics.js';
import type { BenchReport, ResultRow } from './runner.js';

function fmt(v: number | null | undefined, kind: 'share' | 'x' | 'ms' | 'int'): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  switch (kind) {
    case 'share':
      return v.toFixed(3);
    case 'x':
      return `${v.toFixed(2)}x`;
    case 'ms':
      return v < 10 ? v.toFixed(2) : v.toFixed(1);
    case 'int':
      return String(Math.round(v));
  }
}

const MAIN_COLUMNS: [string, keyof Summary, 'share' | 'x' | 'ms' | 'int'][] = [
  ['files', 'files', 'int'],
  ['recall (micro)', 'recall_micro', 'share'],
  ['recall (file mean)', 'recall_file_mean', 'share'],
  ['files all kept', 'files_all_kept', 'share'],
  ['hunks whole', 'hunks_all_kept', 'share'],
  ['compr. gold', 'compression_gold', 'x'],
  ['compr. distractor', 'compression_distractor', 'x'],
  ['compr. all', 'compression_all', 'x'],
  ['tokens saved', 'token_saving', 'share'],
  ['valid', 'valid_rate', 'share'],
  ['p50 ms', 'latency_ms_p50', 'ms'],
  ['p95 ms', 'latency_ms_p95', 'ms'],
];

function table(header: string[], rows: string[][], textColumns = 2): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i < textColumns ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

export function mainTable(rows: ResultRow[]): string {
  return table(
    ['method', 'budget', ...MAIN_COLUMNS.map((c) => c[0])],
    rows.map((r) => [r.method, r.budget, ...MAIN_COLUMNS.map(([, k, kind]) => fmt(r[k] as number | null, kind))]),
  );
}

export function replayTable(rows: ResultRow[]): string {
  const rs = rows.filter((r) => r.replay);
  return table(
    ['method', 'budget', 'reads', 'runs', 'read tokens saved', 'saved net of re-reads', 're-read rate', 'run saving (mean)', 'gold obs recall'],
    rs.map((r) => {
      const p = r.replay!;
      return [
        r.method,
        r.budget,
        fmt(p.reads, 'int'),
        fmt(p.runs, 'int'),
        fmt(p.token_saving, 'share'),
        fmt(p.token_saving_net_rereads, 'share'),
        fmt(p.reread_rate, 'share'),
        fmt(p.run_saving_mean, 'share'),
        fmt(p.recall_gold_obs, 'share'),
      ];
    }),
  );
}

/** Languages as rows, methods (at one budget, plus the budget-free ones) as columns: "recall / compression / valid". */
export function languageTable(rows: ResultRow[], budget: string): string {
  const rs = rows.filter((r) => r.by_language && (r.budget === budget || r.budget === 'natural'));
  const langs = [...new Set(rs.flatMap((r) => Object.keys(r.by_language!)))].sort();
  const out = langs.map((lang) => {
    const files = rs.map((r) => r.by_language![lang]?.files ?? 0).reduce((a, b) => Math.max(a, b), 0);
    return [
      lang,
      String(files),
      ...rs.map((r) => {
        const s = r.by_language![lang];
        return s ? `${fmt(s.recall_micro, 'share')} / ${fmt(s.compression_all, 'x')} / ${fmt(s.valid_rate, 'share')}` : '–';
      }),
    ];
  });
  return table(['language', 'files', ...rs.map((r) => (r.budget === 'natural' ? r.method : `${r.method} @ ${r.budget}`))], out);
}

/** skim against the retrieval baseline, the structural outline and Repomix, every suite in one table. */
export const HEADLINE_METHODS = ['skim', 'bm25', 'outline', 'repomix'];

export function headlineTable(rows: ResultRow[]): string {
  const rs = rows.filter((r) => HEADLINE_METHODS.includes(r.method));
  const suites = [...new Set(rows.map((r) => r.suite))];
  rs.sort(
    (a, b) =>
      suites.indexOf(a.suite) - suites.indexOf(b.suite) ||
      budgetRank(a.budget) - budgetRank(b.budget) ||
      HEADLINE_METHODS.indexOf(a.method) - HEADLINE_METHODS.indexOf(b.method),
  );
  return table(
    ['suite', 'budget', 'method', 'recall (micro)', 'files all kept', 'compr. gold', 'compr. distractor', 'compr. all', 'valid', 'p50 ms'],
    rs.map((r) => [
      r.suite,
      r.budget,
      r.method === 'skim' ? '**skim**' : r.method,
      fmt(r.recall_micro, 'share'),
      fmt(r.files_all_kept, 'share'),
      fmt(r.compression_gold, 'x'),
      fmt(r.compression_distractor, 'x'),
      fmt(r.compression_all, 'x'),
      fmt(r.valid_rate, 'share'),
      fmt(r.latency_ms_p50, 'ms'),
    ]),
    3,
  );
}

function budgetRank(b: string): number {
  if (b === 'natural') return -1;
  if (b === 'adaptive') return 0;
  return Number.parseFloat(b);
}

export function toMarkdown(report: BenchReport): string {
  const parts: string[] = [];
  const suites = [...new Set(report.results.map((r) => r.suite))];
  if (suites.length > 1 && report.results.some((r) => r.method === 'skim')) {
    parts.push('### Headline: skim vs bm25 vs outline vs repomix\n');
    parts.push(headlineTable(report.results));
    parts.push('');
  }
  for (const suite of suites) {
    const rows = report.results.filter((r) => r.suite === suite);
    const meta = report.meta.cases.find((c) => c.suite === suite);
    parts.push(`### ${suite}${meta ? ` (${meta.cases} cases, ${meta.files} files)` : ''}\n`);
    parts.push(mainTable(rows));
    const errs = rows.filter((r) => r.errors > 0);
    if (errs.length) parts.push(`\nErrors: ${errs.map((r) => `${r.method} @ ${r.budget}: ${r.errors}`).join(', ')}`);
    if (rows.some((r) => r.replay)) parts.push('\n' + replayTable(rows));
    if (rows.some((r) => r.by_language)) {
      for (const b of report.meta.budgets) {
        parts.push(`\nBy language at ${b} (recall micro / compression / valid):\n`);
        parts.push(languageTable(rows, b));
      }
    }
    parts.push('');
  }
  return parts.join('\n') + '\n';
}
