/**
 * `skim data synth`: chunk a corpus, ask a teacher model for a goal hint of one of the nine task
 * types and the lines answering it, validate (retry or drop), optionally let a judge model score
 * it, and append records in the teacher-train layout. Resumable: chunk ids already in the output
 * (or finally dropped, per the sidecar `<out>.state.jsonl`) are skipped on restart.
 */
import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { ChatClient, ChatError, emptyUsage, type Usage } from './chatClient.js';
import { type Chunk, chunkCorpus } from './chunks.js';
import { type Invalid, judgeMessages, type TaskType, taskTypeOf, teacherMessages, validateJudge, validateTeacher } from './prompts.js';

export interface SynthOptions {
  corpus: string;
  endpoint: string;
  model: string;
  judgeModel?: string;
  /** Judge scores below this drop the sample (default 3). */
  minScore?: number;
  concurrency?: number;
  maxChunks?: number;
  out: string;
  apiKey?: string;
  /** The `repo` field of the records (default: the corpus directory name). */
  repo?: string;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  /** Re-asks of the teacher when its reply does not validate. */
  validationRetries?: number;
  /** USD per million prompt / completion tokens, for the cost estimate. */
  priceIn?: number;
  priceOut?: number;
  /** Files longer than this are stored as the chunk alone rather than the whole file. */
  maxFileLines?: number;
  signal?: AbortSignal;
  onStart?: (total: number) => void;
  onDone?: (done: number, kept: number) => void;
}

export interface TeacherRecord {
  id: string;
  repo: string;
  lang: string;
  task_type: TaskType;
  query: string;
  files: { path: string; role: 'gold'; content: string; gold_lines: number[]; support_lines: number[]; anchor_lines: number[]; hunks: unknown[] }[];
  chunk: { start: number; end: number };
  teacher: string;
  judge_score?: number;
}

type DropReason = Invalid | 'judgeLow' | 'judgeInvalid' | 'timeout' | 'http' | 'network';
/** Drops that a restart should try again (the endpoint misbehaved, not the sample). */
const TRANSIENT = new Set<DropReason>(['timeout', 'http', 'network']);

export interface SynthSummary {
  chunks: number;
  files: number;
  skippedFiles: number;
  alreadyDone: number;
  attempted: number;
  kept: number;
  dropped: Partial<Record<DropReason, number>>;
  /** Replies that failed validation and were asked again. */
  invalidReplies: Partial<Record<Invalid, number>>;
  interrupted: boolean;
  teacher: Usage;
  judge?: Usage;
  costUsd: number | null;
  seconds: number;
}

interface StateLine {
  id: string;
  status: 'kept' | 'dropped';
  reason?: DropReason;
}

/** Chunk ids not to redo: records in the output, and final drops in the state sidecar. Repairs a torn last line. */
function loadDone(out: string, state: string): Set<string> {
  const done = new Set<string>();
  if (existsSync(out) && statSync(out).size > 0) {
    const text = readFileSync(out, 'utf8');
    const lastNl = text.lastIndexOf('\n');
    if (lastNl !== text.length - 1) {
      // interrupted mid-write: cut the partial record so appends stay one JSON per line
      const fd = openSync(out, 'r+');
      ftruncateSync(fd, Buffer.byteLength(text.slice(0, lastNl + 1)));
      closeSync(fd);
    }
    for (const line of text.slice(0, lastNl + 1).split('\n')) {
      if (!line.trim()) continue;
      try {
        const id = (JSON.parse(line) as { id?: string }).id;
        if (id) done.add(id);
      } catch {
        // a damaged line: its chunk is redone
      }
    }
  }
  if (existsSync(state)) {
    for (const line of readFileSync(state, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const s = JSON.parse(line) as StateLine;
        if (s.status === 'kept' || (s.reason && !TRANSIENT.has(s.reason))) done.add(s.id);
      } catch {
        // ignore
      }
    }
  }
  return done;
}

export function recordId(repo: string, c: Chunk): string {
  return `${repo}#${c.id}`;
}

export async function runSynth(o: SynthOptions): Promise<SynthSummary> {
  const t0 = Date.now();
  const repo = o.repo ?? basename(resolve(o.corpus));
  const { chunks: all, files, skippedFiles } = await chunkCorpus(o.corpus);
  const chunks = o.maxChunks !== undefined ? all.slice(0, o.maxChunks) : all;
  const statePath = `${o.out}.state.jsonl`;
  const done = loadDone(o.out, statePath);
  const todo = chunks.filter((c) => !done.has(recordId(repo, c)));
  const summary: SynthSummary = {
    chunks: chunks.length,
    files,
    skippedFiles,
    alreadyDone: chunks.length - todo.length,
    attempted: 0,
    kept: 0,
    dropped: {},
    invalidReplies: {},
    interrupted: false,
    teacher: emptyUsage(),
    judge: o.judgeModel ? emptyUsage() : undefined,
    costUsd: null,
    seconds: 0,
  };
  const client = new ChatClient({ endpoint: o.endpoint, apiKey: o.apiKey, timeoutMs: o.timeoutMs, retries: o.retries, backoffMs: o.backoffMs });
  o.onStart?.(todo.length);
  const drop = (id: string, reason: DropReason) => {
    summary.dropped[reason] = (summary.dropped[reason] ?? 0) + 1;
    appendFileSync(statePath, JSON.stringify({ id, status: 'dropped', reason } satisfies StateLine) + '\n');
  };

  const processChunk = async (c: Chunk): Promise<void> => {
    const id = recordId(repo, c);
    const task = taskTypeOf(c);
    let answer: { query: string; lines: number[] } | null = null;
    let lastInvalid: Invalid = 'invalidJson';
    const tries = (o.validationRetries ?? 2) + 1;
    try {
      for (let k = 0; k < tries && !answer; k++) {
        const reply = await client.complete(o.model, teacherMessages(c, task), summary.teacher, o.signal);
        const v = validateTeacher(reply, c);
        if (typeof v === 'string') {
          lastInvalid = v;
          summary.invalidReplies[v] = (summary.invalidReplies[v] ?? 0) + 1;
        } else answer = v;
      }
      if (!answer) return drop(id, lastInvalid);
      let score: number | undefined;
      if (o.judgeModel) {
        let s: ReturnType<typeof validateJudge> = 'invalidJson';
        for (let k = 0; k < tries && typeof s !== 'number'; k++) {
          s = validateJudge(await client.complete(o.judgeModel, judgeMessages(c, task, answer.query, answer.lines), summary.judge!, o.signal));
        }
        if (typeof s !== 'number') return drop(id, 'judgeInvalid');
        if (s < (o.minScore ?? 3)) return drop(id, 'judgeLow');
        score = s;
      }
      if (o.signal?.aborted) return; // interrupted after the reply: redo on restart rather than half-write
      appendFileSync(o.out, JSON.stringify(toRecord(repo, c, task, answer, o, score)) + '\n');
      appendFileSync(statePath, JSON.stringify({ id, status: 'kept' } satisfies StateLine) + '\n');
      summary.kept++;
    } catch (err) {
      if (err instanceof ChatError) {
        if (err.kind === 'aborted') return;
        return drop(id, err.kind === 'timeout' ? 'timeout' : err.kind === 'http' ? 'http' : 'network');
      }
      throw err;
    }
  };

  // a fixed pool of workers pulling from one queue: at most `concurrency` requests in flight
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (next < todo.length && !o.signal?.aborted) {
      const c = todo[next++];
      summary.attempted++;
      await processChunk(c);
      o.onDone?.(++finished, summary.kept);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? 4) }, worker));
  summary.interrupted = !!o.signal?.aborted;
  if (o.priceIn !== undefined || o.priceOut !== undefined) {
    const inTok = summary.teacher.promptTokens + (summary.judge?.promptTokens ?? 0);
    const outTok = summary.teacher.completionTokens + (summary.judge?.completionTokens ?? 0);
    summary.costUsd = (inTok * (o.priceIn ?? 0) + outTok * (o.priceOut ?? 0)) / 1e6;
  }
  summary.seconds = (Date.now() - t0) / 1000;
  return summary;
}

function toRecord(repo: string, c: Chunk, task: TaskType, a: { query: string; lines: number[] }, o: SynthOptions, score?: number): TeacherRecord {
  // the whole file when it is not huge (more realistic negatives), else the chunk alone (renumbered)
  const whole = c.fileLines.length <= (o.maxFileLines ?? 1200);
  const content = (whole ? c.fileLines : c.fileLines.slice(c.start - 1, c.end)).join('\n') + '\n';
  const gold = whole ? a.lines : a.lines.map((l) => l - c.start + 1);
  const rec: TeacherRecord = {
    id: recordId(repo, c),
    repo,
    lang: c.lang,
    task_type: task,
    query: a.query,
    files: [{ path: c.path, role: 'gold', content, gold_lines: gold, support_lines: [], anchor_lines: [], hunks: [] }],
    chunk: whole ? { start: c.start, end: c.end } : { start: 1, end: c.end - c.start + 1 },
    teacher: o.model,
  };
  if (score !== undefined) rec.judge_score = score;
  return rec;
}

export function formatSynthSummary(s: SynthSummary): string {
  const nz = (r: Record<string, number | undefined>) =>
    Object.entries(r)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none';
  const usage = (name: string, u: Usage) =>
    `  ${name}: ${u.requests} requests (${u.retries} retries; failures: ${nz(u.failures)}), tokens ${u.promptTokens} in / ${u.completionTokens} out`;
  return [
    `synth: ${s.chunks} chunks from ${s.files} files (${s.skippedFiles} files skipped); ${s.alreadyDone} already done; ${s.attempted} attempted in ${s.seconds.toFixed(1)}s${s.interrupted ? ' (interrupted: run again to resume)' : ''}`,
    `  kept ${s.kept}; dropped: ${nz(s.dropped)}; invalid replies re-asked: ${nz(s.invalidReplies)}`,
    usage('teacher', s.teacher),
    ...(s.judge ? [usage('judge', s.judge)] : []),
    `  estimated cost: ${s.costUsd === null ? 'n/a (pass --price-in/--price-out, USD per 1M tokens)' : `$${s.costUsd.toFixed(4)}`}`,
  ].join('\n');
}
