/**
 * The bench loop: stream each case file, prepare every file once (ingest, language, tokens in,
 * input syntax), run every method at every budget, score the output against the labels, and
 * aggregate per suite, method and budget.
 */
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ingest } from '../core/ingest/ingest.js';
import { checkSyntax, detectLanguage, normalizeLanguage } from '../core/syntax/index.js';
import { countTokens } from '../core/tokens/count.js';
import { type BenchCase, type BenchFile, type CaseFormat, countCases, readCases } from './cases.js';
import type { BenchMethod, Budget, PreparedFile } from './methods/types.js';
import { byLanguage, type FileRecord, type ReplaySummary, type Summary, scoreLabels, summarize, summarizeReplay } from './metrics.js';

export interface BenchOptions {
  cases: string[];
  methods: BenchMethod[];
  budgets: Budget[];
  limit?: number;
  /** Called once with the total number of cases, then after each case. */
  progress?: { start(total: number): void; tick(label: string): void; stop(): void };
  /** Called on a method failure (once per method/budget/suite); the file is counted in `errors`. */
  onError?: (msg: string) => void;
  /** Called with every per-file measurement (for --records: find the files a method fails on). */
  onRecord?: (r: FileRecord & { suite: string; id: string; path: string; method: string; budget: string }) => void;
}

export interface ResultRow extends Summary {
  suite: string;
  method: string;
  budget: string;
  errors: number;
  by_language?: Record<string, Summary>;
  replay?: ReplaySummary;
}

export interface BenchReport {
  results: ResultRow[];
  meta: {
    cases: { file: string; suite: string; format: CaseFormat | null; cases: number; files: number }[];
    methods: string[];
    /** What each method resolved to (skim's scorer), when it says. */
    method_details: Record<string, string>;
    budgets: string[];
    limit: number | null;
    node: string;
    date: string;
    wall_s: number;
  };
}

export function suiteName(file: string): string {
  return basename(file)
    .replace(/\.gz$/, '')
    .replace(/\.jsonl?$/, '');
}

/** The budgets a method runs at: natural methods once, others at each requested budget they support. */
export function budgetsFor(m: BenchMethod, budgets: Budget[]): Budget[] {
  if (m.kind === 'natural') return [{ label: 'natural' }];
  if (m.kind === 'adaptive-only') return [{ label: 'adaptive' }];
  if (m.kind === 'budgeted-no-adaptive') return budgets.filter((b) => b.ratio !== undefined);
  return budgets;
}

export function prepareFile(c: BenchCase, file: BenchFile, index: number): PreparedFile {
  const hint = file.langHint ? normalizeLanguage(file.langHint) : undefined;
  const language = hint ?? detectLanguage(file.path || undefined, file.code);
  const doc = ingest(file.code, {
    path: file.path || undefined,
    // A pathless observation (grep) gets its language per segment from the grep paths.
    language: file.path || hint ? language : undefined,
    detectLanguage: (p, content) => detectLanguage(p, content),
  });
  return {
    file,
    query: c.query,
    language: file.path || hint ? language : (doc.segments[0]?.language ?? language),
    doc,
    tokensIn: countTokens(file.code),
    key: `${c.id}#${index}:${file.path}`,
  };
}

/** Whether syntax validity applies: a raw file whose input parses cleanly with a grammar. */
async function inputParses(f: PreparedFile): Promise<boolean> {
  if (f.doc.shape !== 'raw') return false;
  const r = await checkSyntax(f.file.code, f.language);
  return r.ok && r.hasGrammar;
}

export async function runBench(opts: BenchOptions): Promise<BenchReport> {
  const t0 = performance.now();
  const limit = opts.limit ?? Infinity;
  const records = new Map<string, FileRecord[]>();
  const errors = new Map<string, number>();
  const reportedErrors = new Set<string>();
  const order: { suite: string; method: string; budget: string; format: CaseFormat | null }[] = [];
  const metaCases: BenchReport['meta']['cases'] = [];

  let total = 0;
  for (const file of opts.cases) total += await countCases(file, limit);
  opts.progress?.start(total);

  for (const caseFile of opts.cases) {
    const suite = suiteName(caseFile);
    const info = { file: caseFile, suite, format: null as CaseFormat | null, cases: 0, files: 0 };
    metaCases.push(info);
    const keyOf = (m: string, b: string) => `${suite}\u0000${m}\u0000${b}`;
    for (const m of opts.methods) {
      for (const b of budgetsFor(m, opts.budgets)) {
        order.push({ suite, method: m.name, budget: b.label, format: null });
        records.set(keyOf(m.name, b.label), []);
      }
    }
    for await (const c of readCases(caseFile, limit)) {
      info.format ??= c.format;
      info.cases++;
      for (let fi = 0; fi < c.files.length; fi++) {
        const f = prepareFile(c, c.files[fi], fi);
        info.files++;
        const parses = await inputParses(f);
        for (const m of opts.methods) {
          for (const b of budgetsFor(m, opts.budgets)) {
            const key = keyOf(m.name, b.label);
            let out;
            const s = performance.now();
            try {
              out = await m.run(f, b);
            } catch (e) {
              errors.set(key, (errors.get(key) ?? 0) + 1);
              if (!reportedErrors.has(key)) {
                reportedErrors.add(key);
                opts.onError?.(`${m.name} @ ${b.label} failed on ${c.id} ${f.file.path}: ${(e as Error).message}`);
              }
              continue;
            }
            const ms = performance.now() - s;
            const valid = parses ? (await checkSyntax(out.text, f.language)).ok : null;
            const rec: FileRecord = {
              role: f.file.role,
              language: f.language,
              runId: c.runId,
              ...scoreLabels(out.keepMask, f.file.labels, f.file.hunks),
              tokensIn: f.tokensIn,
              tokensOut: out.tokensOut,
              valid,
              ms,
            };
            records.get(key)!.push(rec);
            opts.onRecord?.({ suite, id: c.id, path: f.file.path, method: m.name, budget: b.label, ...rec });
          }
        }
      }
      opts.progress?.tick(c.id);
    }
    for (const o of order) if (o.suite === suite) o.format = info.format;
  }
  opts.progress?.stop();
  const methodDetails: Record<string, string> = {};
  for (const m of opts.methods) if (m.describe) methodDetails[m.name] = await m.describe();

  const results: ResultRow[] = order.map((o) => {
    const recs = records.get(`${o.suite}\u0000${o.method}\u0000${o.budget}`)!;
    const row: ResultRow = {
      method: o.method,
      budget: o.budget,
      ...summarize(recs),
      suite: o.suite,
      errors: errors.get(`${o.suite}\u0000${o.method}\u0000${o.budget}`) ?? 0,
    };
    if (o.format === 'commit' || new Set(recs.map((r) => r.language)).size > 1) row.by_language = byLanguage(recs);
    if (o.format === 'replay') row.replay = summarizeReplay(recs);
    return row;
  });
  return {
    results,
    meta: {
      cases: metaCases,
      methods: opts.methods.map((m) => m.name),
      method_details: methodDetails,
      budgets: opts.budgets.map((b) => b.label),
      limit: Number.isFinite(limit) ? limit : null,
      node: process.version,
      date: new Date().toISOString(),
      wall_s: (performance.now() - t0) / 1000,
    },
  };
}
