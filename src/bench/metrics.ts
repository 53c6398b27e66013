/**
 * Per-file measurements and their aggregation into the figures `skim bench` reports.
 *
 * recall_micro      kept labelled lines / labelled lines, over gold files
 * recall_file_mean  mean per-file recall over gold files with labels
 * files_all_kept    share of gold files with every labelled line kept
 * hunks_all_kept    share of hunks (diff hunks / label clusters) kept whole; null without hunks
 * compression_*     Σ tokens in / Σ tokens out on gold files, distractors, all files
 * token_saving      1 - Σ out / Σ in over all files
 * valid_rate        share of outputs that parse, among files whose input parses with a grammar
 * latency_ms_*      per-file wall time of the method call
 * Replay extras: token_saving_net_rereads charges a full second read for every observation that
 * lost a gold line; run_saving_mean is the mean per-run saving.
 */

export interface FileRecord {
  role: 'gold' | 'distractor';
  language: string;
  runId?: string;
  labels: number;
  labelsKept: number;
  hunks: number;
  hunksKept: number;
  tokensIn: number;
  tokensOut: number;
  /** null: not checked (input does not parse, no grammar, or not a raw file). */
  valid: boolean | null;
  ms: number;
}

/** Count kept labels and whole hunks for one output. */
export function scoreLabels(keepMask: Uint8Array, labels: number[], hunks: number[][]): Pick<FileRecord, 'labels' | 'labelsKept' | 'hunks' | 'hunksKept'> {
  const kept = (l: number) => l >= 1 && l <= keepMask.length && keepMask[l - 1] === 1;
  let labelsKept = 0;
  for (const l of labels) if (kept(l)) labelsKept++;
  let hunksKept = 0;
  for (const h of hunks) if (h.every(kept)) hunksKept++;
  return { labels: labels.length, labelsKept, hunks: hunks.length, hunksKept };
}

export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  // Nearest-rank percentile.
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[rank - 1];
}

export interface Summary {
  files: number;
  recall_micro: number | null;
  recall_file_mean: number | null;
  files_all_kept: number | null;
  hunks_all_kept: number | null;
  compression_gold: number | null;
  compression_distractor: number | null;
  compression_all: number | null;
  token_saving: number | null;
  valid_rate: number | null;
  latency_ms_p50: number | null;
  latency_ms_p95: number | null;
}

function ratio(a: number, b: number): number | null {
  return b > 0 ? a / b : null;
}

export function summarize(recs: FileRecord[]): Summary {
  const gold = recs.filter((r) => r.role === 'gold' && r.labels > 0);
  let lab = 0;
  let kept = 0;
  let hunks = 0;
  let hunksKept = 0;
  for (const r of gold) {
    lab += r.labels;
    kept += r.labelsKept;
    hunks += r.hunks;
    hunksKept += r.hunksKept;
  }
  const sum = (rs: FileRecord[], k: 'tokensIn' | 'tokensOut') => rs.reduce((s, r) => s + r[k], 0);
  const goldAll = recs.filter((r) => r.role === 'gold');
  const dis = recs.filter((r) => r.role === 'distractor');
  const checked = recs.filter((r) => r.valid !== null);
  const tin = sum(recs, 'tokensIn');
  const tout = sum(recs, 'tokensOut');
  const ms = recs.map((r) => r.ms);
  return {
    files: recs.length,
    recall_micro: ratio(kept, lab),
    recall_file_mean: gold.length ? gold.reduce((s, r) => s + r.labelsKept / r.labels, 0) / gold.length : null,
    files_all_kept: gold.length ? gold.filter((r) => r.labelsKept === r.labels).length / gold.length : null,
    hunks_all_kept: ratio(hunksKept, hunks),
    compression_gold: goldAll.length ? ratio(sum(goldAll, 'tokensIn'), sum(goldAll, 'tokensOut')) : null,
    compression_distractor: dis.length ? ratio(sum(dis, 'tokensIn'), sum(dis, 'tokensOut')) : null,
    compression_all: recs.length ? ratio(tin, tout) : null,
    token_saving: tin > 0 ? 1 - tout / tin : null,
    valid_rate: checked.length ? checked.filter((r) => r.valid).length / checked.length : null,
    latency_ms_p50: percentile(ms, 50),
    latency_ms_p95: percentile(ms, 95),
  };
}

export interface ReplaySummary {
  reads: number;
  runs: number;
  /** Share of all read tokens saved across every read of every run. */
  token_saving: number | null;
  /** The same, charging a second full read for each read that lost a gold line. */
  token_saving_net_rereads: number | null;
  /** Share of reads showing gold lines that lost at least one. */
  reread_rate: number | null;
  /** Mean over runs of each run's saving. */
  run_saving_mean: number | null;
  recall_gold_obs: number | null;
}

export function summarizeReplay(recs: FileRecord[]): ReplaySummary {
  let tin = 0;
  let tout = 0;
  let net = 0;
  let goldReads = 0;
  let lost = 0;
  let lab = 0;
  let kept = 0;
  const runs = new Map<string, { tin: number; tout: number }>();
  for (const r of recs) {
    tin += r.tokensIn;
    tout += r.tokensOut;
    const lostGold = r.labels > 0 && r.labelsKept < r.labels;
    net += r.tokensOut + (lostGold ? r.tokensIn : 0);
    if (r.labels > 0) goldReads++;
    if (lostGold) lost++;
    lab += r.labels;
    kept += r.labelsKept;
    const key = r.runId ?? '';
    const run = runs.get(key) ?? { tin: 0, tout: 0 };
    run.tin += r.tokensIn;
    run.tout += r.tokensOut;
    runs.set(key, run);
  }
  const perRun = [...runs.values()].filter((x) => x.tin > 0).map((x) => 1 - x.tout / x.tin);
  return {
    reads: recs.length,
    runs: runs.size,
    token_saving: tin > 0 ? 1 - tout / tin : null,
    token_saving_net_rereads: tin > 0 ? 1 - net / tin : null,
    reread_rate: ratio(lost, goldReads),
    run_saving_mean: perRun.length ? perRun.reduce((a, b) => a + b, 0) / perRun.length : null,
    recall_gold_obs: ratio(kept, lab),
  };
}

/** Per-language breakdown (polyglot and any multi-language suite). */
export function byLanguage(recs: FileRecord[]): Record<string, Summary> {
  const groups = new Map<string, FileRecord[]>();
  for (const r of recs) {
    const g = groups.get(r.language) ?? [];
    g.push(r);
    groups.set(r.language, g);
  }
  return Object.fromEntries([...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, summarize(v)]));
}
