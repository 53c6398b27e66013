/**
 * Streaming readers for the training data (../shared/data) and the bench cases (../shared/bench).
 * Both formats become `LabeledFile`s: one (query, file) pair with 0-based labelled lines.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { terms } from '../core/features/lexical.js';

export type SampleSource = 'commit' | 'teacher' | 'swebench' | 'goalhint';

export interface LabeledFile {
  id: string;
  source: SampleSource;
  repo: string;
  path: string;
  lang: string;
  query: string;
  /** Query flavour: "commit", "issue", "goal". */
  queryKind: 'commit' | 'issue' | 'goal';
  /** The commit a commit sample comes from. */
  commit?: string;
  taskType?: string;
  lines: string[];
  /** Aggregate must-keep lines (0-based): gold ∪ anchor for commits/swebench, gold_lines for teacher/goalhint. */
  agg: number[];
  /** Teacher support lines (0-based), when the data has them. */
  support?: number[];
  /** Fix lines only (swebench: gold ∪ anchor of gold files) — same as agg there. */
  role: 'gold' | 'distractor';
  split: 'train' | 'val';
}

/** One line of a commits file (../shared/data/commits.jsonl.gz, `skim data mine`). */
export interface CommitRecord {
  repo: string;
  commit: string;
  path: string;
  lang: string;
  query: string;
  code: string;
  gold_lines: number[];
  anchor_lines: number[];
  split: string;
}

/** A commit sample as a LabeledFile: the window before the commit, its changed lines as the label. */
export function commitFile(rec: CommitRecord, lines: string[], agg: number[], split: 'train' | 'val'): LabeledFile {
  return {
    id: `${rec.repo}@${rec.commit}:${rec.path}`,
    source: 'commit',
    repo: rec.repo,
    commit: rec.commit,
    path: rec.path,
    lang: rec.lang,
    query: rec.query,
    queryKind: 'commit',
    lines,
    agg,
    role: 'gold',
    split,
  };
}

/** Stream JSON objects from a .jsonl or .jsonl.gz file. */
export async function* readJsonl(path: string): AsyncGenerator<Record<string, unknown>> {
  const stream = createReadStream(path);
  const input = path.endsWith('.gz') ? stream.pipe(createGunzip()) : stream;
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    yield JSON.parse(line) as Record<string, unknown>;
  }
}

export function splitLines(code: string): string[] {
  const lines = code.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Which data format a file holds, from its first record. */
export function detectFormat(rec: Record<string, unknown>): 'commits' | 'cases' {
  return Array.isArray(rec.files) ? 'cases' : 'commits';
}

/** A stable 32-bit hash (FNV-1a) for splits and sampling. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface CommitFilterStats {
  total: number;
  noLabels: number;
  vagueMessage: number;
  hugeDiff: number;
  tooShort: number;
  kept: number;
}

const VAGUE_RE =
  /^(merge|bump|release|version|changelog|update (changelog|readme|docs?|deps|dependencies)|fix (tests?|ci|lint|typo|typos|build)|lint|format|typo|wip|cleanup|clean up|minor|misc|chore|revert|prepare|attempt to fix)\b/i;

/** Why a commit sample is too noisy to learn from (null = keep). */
export function commitRejection(
  rec: { query: string; code: string; gold_lines: number[]; anchor_lines: number[] },
  nLines: number,
): keyof CommitFilterStats | null {
  const labelled = new Set([...rec.gold_lines, ...rec.anchor_lines]);
  if (labelled.size === 0) return 'noLabels';
  const subject = rec.query.split('\n')[0].replace(/^\w+(\([^)]*\))?!?:\s*/, '');
  const contentTerms = new Set(terms(rec.query));
  if (VAGUE_RE.test(subject.trim()) || contentTerms.size < 3) return 'vagueMessage';
  if (labelled.size > Math.max(40, 0.3 * nLines)) return 'hugeDiff';
  if (nLines < 15) return 'tooShort';
  return null;
}

export interface CommitReadOptions {
  /** Keep at most this many filtered train / val samples (deterministic hash-based sampling). */
  maxTrain: number;
  maxVal: number;
  /** Sampling rate applied before the caps (hash < rate). */
  rate?: number;
}

/** Read, filter and subsample commit samples (streaming). */
export async function readCommits(path: string, opts: CommitReadOptions, stats: CommitFilterStats): Promise<LabeledFile[]> {
  const out: LabeledFile[] = [];
  let nTrain = 0;
  let nVal = 0;
  const rate = opts.rate ?? 1;
  for await (const r of readJsonl(path)) {
    stats.total++;
    const rec = r as unknown as CommitRecord;
    const key = `${rec.repo}@${rec.commit}:${rec.path}`;
    if (hash32(key) / 4294967296 >= rate) continue;
    const lines = splitLines(rec.code);
    const why = commitRejection(rec, lines.length);
    if (why) {
      stats[why]++;
      continue;
    }
    const split = rec.split === 'val' ? 'val' : 'train';
    if (split === 'train' ? nTrain >= opts.maxTrain : nVal >= opts.maxVal) continue;
    if (split === 'train') nTrain++;
    else nVal++;
    stats.kept++;
    const agg = [...new Set([...rec.gold_lines, ...rec.anchor_lines])]
      .map((x) => x - 1)
      .filter((x) => x >= 0 && x < lines.length)
      .sort((a, b) => a - b);
    out.push(commitFile(rec, lines, agg, split));
    if (nTrain >= opts.maxTrain && nVal >= opts.maxVal) break;
  }
  return out;
}

/**
 * Same-repository distractors: for each file of `chosen`, `rate` other files of `pool` (on average:
 * the integer part always, the fraction for a hash-chosen share) become distractors for its query,
 * with no labelled line and document label 0. A candidate is of the same repository and language,
 * another path, another commit (commit samples), not a file of the same query (teacher cases come
 * with their own distractor), and from the same folder when eight hashed probes find one there, else
 * from anywhere in the repository. Commit samples come with no distractor at all, so without these
 * the document head learns from ~1,100 teacher pairs only, and from none shaped like SWE-bench's
 * (neighbour files of the same folder).
 */
export function repoDistractors(chosen: LabeledFile[], pool: LabeledFile[], rate: number): LabeledFile[] {
  if (rate <= 0) return [];
  const dirOf = (p: string) => p.slice(0, p.lastIndexOf('/') + 1);
  const queryKey = (f: LabeledFile) => `${f.repo}\u0000${f.query}`;
  const byRepo = new Map<string, LabeledFile[]>();
  const byDir = new Map<string, LabeledFile[]>();
  const seen = new Set<string>();
  const queryPaths = new Map<string, string[]>();
  const push = <T>(m: Map<string, T[]>, k: string, v: T) => (m.get(k) ?? m.set(k, []).get(k)!).push(v);
  for (const f of [...pool, ...chosen]) if (f.commit === undefined) push(queryPaths, queryKey(f), f.path);
  for (const f of pool) {
    const key = `${f.repo}:${f.commit ?? ''}:${f.path}`; // a teacher file serves several queries: one candidate
    if (f.role !== 'gold' || seen.has(key)) continue;
    seen.add(key);
    push(byRepo, `${f.repo}|${f.lang}`, f);
    push(byDir, `${f.repo}|${f.lang}|${dirOf(f.path)}`, f);
  }
  const out: LabeledFile[] = [];
  for (const c of chosen) {
    const count = Math.floor(rate) + (hash32(`distractor?:${c.id}`) / 4294967296 < rate - Math.floor(rate) ? 1 : 0);
    const r = `${c.repo}|${c.lang}`;
    // a commit's other files are ruled out by their commit; a teacher query's by its own file list
    const taken = new Set(c.commit === undefined ? queryPaths.get(queryKey(c)) : [c.path]);
    for (let n = 0; n < count; n++) {
      let pick: LabeledFile | undefined;
      for (const group of [byDir.get(`${r}|${dirOf(c.path)}`), byRepo.get(r)]) {
        if (!group) continue;
        // a few hashed probes: deterministic, and cheap even in a 10k-sample repository
        for (let k = 0; k < 8 && !pick; k++) {
          const d = group[hash32(n === 0 ? `distractor:${k}:${c.id}` : `distractor:${n}:${k}:${c.id}`) % group.length];
          if (!taken.has(d.path) && (c.commit === undefined || d.commit !== c.commit)) pick = d;
        }
        if (pick) break;
      }
      if (!pick) break;
      taken.add(pick.path);
      out.push({
        id: `${c.id}~${pick.path}`,
        source: c.source,
        repo: c.repo,
        path: pick.path,
        lang: pick.lang,
        query: c.query,
        queryKind: c.queryKind,
        ...(c.taskType ? { taskType: c.taskType } : {}),
        lines: pick.lines,
        agg: [],
        role: 'distractor',
        split: c.split,
      });
    }
  }
  return out;
}

/**
 * Repositories of teacher-train held back for validation: chosen by hash, about 15% of them,
 * so no file (and no repository) of the validation slice is seen in training.
 */
export function isTeacherValRepo(repo: string): boolean {
  return hash32(`val:${repo}`) % 100 < 15;
}

/** Read case files (teacher-train, swebench-dev, goalhint-dev): one LabeledFile per (query, file). */
export async function readCases(path: string, source: SampleSource, opts: { limit?: number } = {}): Promise<LabeledFile[]> {
  const out: LabeledFile[] = [];
  let n = 0;
  for await (const r of readJsonl(path)) {
    if (opts.limit !== undefined && n >= opts.limit) break;
    n++;
    const rec = r as unknown as {
      id: string;
      repo: string;
      lang?: string;
      task_type?: string;
      query: string;
      files: { path: string; role: string; content: string; gold_lines?: number[]; anchor_lines?: number[]; support_lines?: number[] }[];
    };
    const taskType = rec.task_type;
    const isIssue = source === 'swebench' || (taskType ?? '').startsWith('issue');
    const split = source === 'teacher' && !isTeacherValRepo(rec.repo) ? 'train' : 'val';
    for (const f of rec.files) {
      const lines = splitLines(f.content);
      const lab = source === 'swebench' ? [...(f.gold_lines ?? []), ...(f.anchor_lines ?? [])] : [...(f.gold_lines ?? []), ...(f.anchor_lines ?? [])];
      const agg = [...new Set(lab)]
        .map((x) => x - 1)
        .filter((x) => x >= 0 && x < lines.length)
        .sort((a, b) => a - b);
      const support = f.support_lines?.map((x) => x - 1).filter((x) => x >= 0 && x < lines.length);
      out.push({
        id: `${rec.id}:${f.path}`,
        source,
        repo: rec.repo,
        path: f.path,
        lang: rec.lang ?? langFromPath(f.path),
        query: rec.query,
        queryKind: isIssue ? 'issue' : 'goal',
        taskType,
        lines,
        agg,
        support,
        role: f.role === 'gold' ? 'gold' : 'distractor',
        split,
      });
    }
  }
  return out;
}

function langFromPath(p: string): string {
  const ext = p.split('.').pop() ?? '';
  return ({ py: 'python', ts: 'typescript', tsx: 'tsx', js: 'javascript', go: 'go', rs: 'rust' } as Record<string, string>)[ext] ?? 'text';
}
