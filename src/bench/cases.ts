/**
 * Streaming readers for every benchmark case format in ../shared/bench (and the commit-style
 * training data), normalized to one shape: a query and the files a pruner reads for it, each
 * with the 1-based input lines that must survive pruning.
 *
 *  - swebench-style (`files[]` with role gold/distractor): labels = gold_lines ∪ anchor_lines,
 *    hunks = each diff hunk's `lines`;
 *  - goal-hint style (same layout plus `task_type`): labels = gold_lines (the answer lines);
 *  - commit style (`code` + `gold_lines`/`anchor_lines`, e.g. polyglot-dev, commits val split):
 *    one gold file, labels = gold ∪ anchor, hunks = label clusters (see clusterHunks);
 *  - agent replay (`code` + `gold_obs_lines`): one observation, labels = gold_obs_lines; reads
 *    that show no gold line count as "distractor" reads.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { countLines } from '../core/ingest/ingest.js';

export type CaseFormat = 'swebench' | 'goalhint' | 'commit' | 'replay';

export interface BenchFile {
  /** Path of the file (empty for grep observations). */
  path: string;
  role: 'gold' | 'distractor';
  /** Exactly what the pruner receives. */
  code: string;
  /** Language hint from the case (polyglot/goalhint `lang`); detection decides otherwise. */
  langHint?: string;
  /** 1-based input lines that must be kept, sorted, unique, within the text. */
  labels: number[];
  /** Groups of labelled lines that belong together (one per diff hunk); empty when n/a. */
  hunks: number[][];
  /** Observation kind for replay cases: file, file-range, numbered, grep. */
  obsKind?: string;
}

export interface BenchCase {
  id: string;
  format: CaseFormat;
  query: string;
  files: BenchFile[];
  /** Replay: the agent run the observation belongs to. */
  runId?: string;
  taskType?: string;
}

/** Labelled lines closer than this many lines apart fall in one hunk (git: 3 lines of context each side). */
export const HUNK_GAP = 7;

/** Group sorted line numbers into clusters whose neighbours are at most `gap` lines apart. */
export function clusterHunks(lines: number[], gap = HUNK_GAP): number[][] {
  const out: number[][] = [];
  for (const l of lines) {
    const last = out[out.length - 1];
    if (last && l - last[last.length - 1] <= gap) last.push(l);
    else out.push([l]);
  }
  return out;
}

function lineCount(code: string): number {
  return countLines(code);
}

/** Sorted unique labels inside [1, n]. */
function cleanLabels(n: number, ...lists: (unknown[] | undefined)[]): number[] {
  const set = new Set<number>();
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const v of list) if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= n) set.add(v);
  }
  return [...set].sort((a, b) => a - b);
}

type Json = Record<string, unknown>;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function detectFormat(rec: Json): CaseFormat | null {
  if (Array.isArray(rec.files)) return 'task_type' in rec || 'support_lines' in ((rec.files as Json[])[0] ?? {}) ? 'goalhint' : 'swebench';
  if (typeof rec.code === 'string' && Array.isArray(rec.gold_obs_lines)) return 'replay';
  if (typeof rec.code === 'string' && (Array.isArray(rec.gold_lines) || Array.isArray(rec.anchor_lines))) return 'commit';
  return null;
}

/** Normalize one JSON record; null when it is not a case (e.g. a commit sample of the train split). */
export function toCase(rec: Json, fallbackId: string): BenchCase | null {
  const format = detectFormat(rec);
  if (!format) throw new Error(`unrecognized case format (keys: ${Object.keys(rec).slice(0, 8).join(', ')})`);
  const query = str(rec.query);
  if (format === 'swebench' || format === 'goalhint') {
    const files: BenchFile[] = [];
    for (const f of rec.files as Json[]) {
      const code = str(f.content);
      const n = lineCount(code);
      const labels = format === 'goalhint' ? cleanLabels(n, f.gold_lines as unknown[]) : cleanLabels(n, f.gold_lines as unknown[], f.anchor_lines as unknown[]);
      const hunks: number[][] = [];
      if (Array.isArray(f.hunks)) {
        for (const h of f.hunks as Json[]) {
          const hl = cleanLabels(n, h.lines as unknown[]);
          if (hl.length) hunks.push(hl);
        }
      }
      files.push({
        path: str(f.path),
        role: f.role === 'gold' ? 'gold' : 'distractor',
        code,
        langHint: typeof rec.lang === 'string' && f.role === 'gold' ? rec.lang : undefined,
        labels,
        hunks,
      });
    }
    return { id: str(rec.id) || fallbackId, format, query, files, taskType: str(rec.task_type) || undefined };
  }
  if (format === 'commit') {
    if (typeof rec.split === 'string' && rec.split !== 'val') return null;
    const code = str(rec.code);
    const labels = cleanLabels(lineCount(code), rec.gold_lines as unknown[], rec.anchor_lines as unknown[]);
    const id = str(rec.id) || (rec.commit ? `${str(rec.repo)}@${str(rec.commit).slice(0, 10)}:${str(rec.path)}` : fallbackId);
    return {
      id,
      format,
      query,
      files: [{ path: str(rec.path), role: 'gold', code, langHint: str(rec.lang) || undefined, labels, hunks: clusterHunks(labels) }],
    };
  }
  // replay
  const code = str(rec.code);
  const labels = cleanLabels(lineCount(code), rec.gold_obs_lines as unknown[]);
  return {
    id: str(rec.id) || fallbackId,
    format,
    query,
    runId: str(rec.instance_id) || undefined,
    files: [
      {
        path: str(rec.path),
        role: labels.length ? 'gold' : 'distractor',
        code,
        labels,
        hunks: [],
        obsKind: str(rec.kind) || undefined,
      },
    ],
  };
}

function openLines(file: string): { lines: AsyncIterable<string>; close: () => void } {
  const raw = createReadStream(file);
  const stream: Readable = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (e) => stream.destroy(e));
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  return {
    lines: rl,
    close: () => {
      rl.close();
      raw.destroy();
    },
  };
}

/** Stream the JSON records of a .jsonl or .jsonl.gz file with their line numbers. */
export async function* readJsonRecords(file: string): AsyncGenerator<{ rec: Json; lineNo: number }> {
  const { lines, close } = openLines(file);
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      if (!line.trim()) continue;
      let rec: Json;
      try {
        rec = JSON.parse(line) as Json;
      } catch {
        throw new Error(`${file}:${lineNo}: not valid JSON`);
      }
      yield { rec, lineNo };
    }
  } finally {
    close();
  }
}

/** Every record of a .jsonl or .jsonl.gz file, in order (for files that fit in memory). */
export async function readAllRecords<T = Json>(file: string): Promise<T[]> {
  const out: T[] = [];
  for await (const { rec } of readJsonRecords(file)) out.push(rec as T);
  return out;
}

/** Stream the cases of a .jsonl or .jsonl.gz file, at most `limit`. */
export async function* readCases(file: string, limit = Infinity): AsyncGenerator<BenchCase> {
  let n = 0;
  for await (const { rec, lineNo } of readJsonRecords(file)) {
    if (n >= limit) break;
    const c = toCase(rec, `${lineNo}`);
    if (!c) continue;
    n++;
    yield c;
  }
}

/** Count the cases a file will yield (cheap first pass, for the progress bar). */
export async function countCases(file: string, limit = Infinity): Promise<number> {
  const { lines, close } = openLines(file);
  let n = 0;
  try {
    for await (const line of lines) {
      if (n >= limit) break;
      if (!line.trim()) continue;
      // commit-style data carries a split; only the val split is a bench case.
      if (line.includes('"split"') && /"split"\s*:\s*"(?!val")/.test(line)) continue;
      n++;
    }
  } finally {
    close();
  }
  return n;
}
