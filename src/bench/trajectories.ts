/**
 * Whole agent runs (the `trajectories` case format, ../shared/bench/README.md): replay each real
 * run with every file read pruned by a method, and measure what it does to the run.
 *
 *  - cost of a run = the sum, over its assistant turns, of the context (characters) before the turn;
 *  - a read that lost one of its gold observation lines (a line the run had been shown earlier,
 *    unchanged, at the same file line, is still in the context and does not count) is charged a
 *    re-read: one more assistant turn, and the whole original observation, which stays in the
 *    context for the rest of the run;
 *  - net saving = 1 - cost with pruning / cost without; read saving = 1 - read characters after /
 *    before; lost reads = reads that showed a gold line and lost it.
 *  - whole-file rescue: each `full_output` (a whole file the harness cut to its head and tail) is
 *    pruned to the characters the cut showed; fix lines kept against those the cut showed.
 *
 * Reads of one run share a session (in order) for methods that use session memory.
 */
import { createHash } from 'node:crypto';
import { ingest } from '../core/ingest/ingest.js';
import { type ReadKind, readKindOf } from '../core/policy/readPolicy.js';
import { SessionMemory } from '../core/session/memory.js';
import type { Document, PruneRequest, PruneResult } from '../core/types.js';

export interface TrajectoryStep {
  message: number;
  command: string;
  thought: string;
  truncated: boolean;
  read: null | { kind: string; path: string; file_lines: (number | null)[]; gold_obs_lines: number[] };
  full_output?: string;
  gold_file_lines?: number[];
}

export interface TrajectoryRun {
  instance_id: string;
  repo: string;
  task: string;
  messages: { role: string; content: string }[];
  steps: TrajectoryStep[];
}

/** A way of handling reads in a replay. */
export interface TrajectoryMethod {
  name: string;
  description: string;
  /**
   * Reads of a run share one SessionMemory ('memory'), or one that only counts reads for the read
   * policy and folds nothing ('counts'), or none (false).
   */
  session: 'memory' | 'counts' | false;
  /** null: the read is not pruned at all. */
  request(read: ReadInput): Omit<PruneRequest, 'code' | 'session'> | null;
}

export interface ReadInput {
  body: string;
  thought: string;
  task: string;
  kind: string;
  path: string;
  firstLine?: number;
}

/** The methods of a trajectory replay (`--methods all` runs each). */
export const TRAJECTORY_METHODS: TrajectoryMethod[] = [
  { name: 'none', description: 'no pruning', session: false, request: () => null },
  {
    name: 'skim-threshold',
    description: 'threshold mode at the calibrated τ for every read, the thought as the query, no memory (skim 0.1.0 default)',
    session: false,
    request: (r) => ({ query: r.thought, path: r.path || undefined, firstLine: r.firstLine, relativeThreshold: 0.5 }),
  },
  {
    name: 'memory-only',
    description: 'session memory only: every read whole except lines the run was shown before, unchanged',
    session: 'memory',
    request: (r) => ({ query: '', path: r.path || undefined, firstLine: r.firstLine }),
  },
  {
    name: 'policy-only',
    description: 'the read policy (default mode, the run task next to the thought; the session counts reads but folds nothing)',
    session: 'counts',
    request: (r) => ({ query: r.thought, task: r.task, path: r.path || undefined, firstLine: r.firstLine }),
  },
  {
    name: 'skim-no-task',
    description: 'the read policy and session memory, the thought alone as the query',
    session: 'memory',
    request: (r) => ({ query: r.thought, path: r.path || undefined, firstLine: r.firstLine }),
  },
  {
    name: 'skim',
    description: 'skim default: the read policy and session memory, the run task next to the thought',
    session: 'memory',
    request: (r) => ({ query: r.thought, task: r.task, path: r.path || undefined, firstLine: r.firstLine }),
  },
];

export function resolveTrajectoryMethods(list: string): TrajectoryMethod[] {
  if (list === 'all') return TRAJECTORY_METHODS;
  return list.split(',').map((name) => {
    const m = TRAJECTORY_METHODS.find((x) => x.name === name.trim());
    if (!m) throw new Error(`unknown trajectory method "${name}" (${TRAJECTORY_METHODS.map((x) => x.name).join(', ')})`);
    return m;
  });
}

/** True when a parsed JSONL record is a whole agent run. */
export function isTrajectoryRecord(rec: Record<string, unknown>): boolean {
  return Array.isArray(rec.messages) && Array.isArray(rec.steps);
}

/** Runs whose id hashes to 0 mod 5 are the validation split (policy fitting uses the rest). */
export function isValidationRun(instanceId: string): boolean {
  return createHash('sha1').update(instanceId).digest()[0] % 5 === 0;
}

const OUTPUT_RE = /^([\s\S]*?<output>\n)([\s\S]*)(<\/output>\s*)$/;

/** Split an observation message into the text before the output body, the body, and after. */
export function splitObservation(content: string): { head: string; body: string; tail: string } | null {
  const m = OUTPUT_RE.exec(content);
  return m ? { head: m[1], body: m[2], tail: m[3] } : null;
}

/** The file line shown on each observation line (by skim's own ingest, so texts compare as skim sees them). */
function observedLines(body: string, read: NonNullable<TrajectoryStep['read']>, firstLine?: number): Document {
  return ingest(body, { path: read.path || undefined, firstLine, detectLanguage: () => 'text' });
}

export interface ReadRecord {
  run: string;
  repo: string;
  step: number;
  method: string;
  kind: string;
  /** The read policy's kind of this read (file, window, grep). */
  readKind: ReadKind;
  lines: number;
  charsIn: number;
  charsOut: number;
  gold: number;
  lost: number;
  docScore: number;
  policy?: string;
  seenLines?: number;
}

export interface RunResult {
  run: string;
  repo: string;
  validation: boolean;
  method: string;
  cost: number;
  readCharsIn: number;
  readCharsOut: number;
  reads: number;
  goldReads: number;
  lostReads: number;
  rereadChars: number;
}

type PruneFn = (req: PruneRequest) => Promise<PruneResult>;

/** A session that counts reads (what the read policy weighs) but has seen nothing (folds nothing). */
class CountingSession extends SessionMemory {
  override seenMask(doc: Document): Uint8Array {
    return new Uint8Array(doc.lines.length);
  }
}

/** Replay one run with one method. */
export async function replayRun(run: TrajectoryRun, method: TrajectoryMethod, prune: PruneFn, onRead?: (r: ReadRecord) => void): Promise<RunResult> {
  const readsByMessage = new Map<number, TrajectoryStep>();
  for (const s of run.steps) if (s.read) readsByMessage.set(s.message, s);
  const session = method.session === 'memory' ? new SessionMemory() : method.session === 'counts' ? new CountingSession() : undefined;
  // What the replayed context has shown: path -> file line -> text (for the lost-line exemption).
  const shown = new SessionMemory();
  const out: RunResult = {
    run: run.instance_id,
    repo: run.repo,
    validation: isValidationRun(run.instance_id),
    method: method.name,
    cost: 0,
    readCharsIn: 0,
    readCharsOut: 0,
    reads: 0,
    goldReads: 0,
    lostReads: 0,
    rereadChars: 0,
  };
  let ctx = 0;
  for (let i = 0; i < run.messages.length; i++) {
    const m = run.messages[i];
    if (m.role === 'assistant') out.cost += ctx;
    const step = readsByMessage.get(i);
    const obs = step?.read && m.role === 'user' ? splitObservation(m.content) : null;
    if (!step?.read || !obs) {
      ctx += m.content.length;
      continue;
    }
    const read = step.read;
    const firstLine = read.kind === 'file-range' && typeof read.file_lines[0] === 'number' ? read.file_lines[0] : undefined;
    const doc = observedLines(obs.body, read, firstLine);
    const req = method.request({ body: obs.body, thought: step.thought, task: run.task, kind: read.kind, path: read.path, firstLine });
    let text = obs.body;
    let keep: Uint8Array | null = null;
    let result: PruneResult | null = null;
    if (req) {
      try {
        result = await prune({ ...req, code: obs.body, session });
        text = result.text;
        keep = result.keepMask;
      } catch {
        // a failed prune is the read whole (fail open), as an agent would get it
      }
    }
    const gold = read.gold_obs_lines.filter((k) => k >= 1 && k <= doc.lines.length);
    // A gold line left out is not lost when the context already shows it: at its number, or (moved
    // by an edit since) at the number the session's line mapping gives it.
    const inContext = keep && read.path ? shown.seenMask(doc, new Int32Array(doc.lines.length)) : null;
    const lost = keep
      ? gold.filter((k) => {
          if (keep![k - 1] || inContext?.[k - 1]) return false;
          const l = doc.lines[k - 1];
          return !(read.path && l.lineNo !== null && shown.hasSeen(read.path, l.lineNo, l.text));
        }).length
      : 0;
    const content = obs.head + text + obs.tail;
    ctx += content.length;
    out.reads++;
    out.readCharsIn += obs.body.length;
    out.readCharsOut += text.length;
    if (gold.length > 0) out.goldReads++;
    // (lines folded as moved are in the context at their new numbers now: the marker said where)
    shown.recordShown(doc, keep ? keep.map((v, i) => (v || inContext?.[i] ? 1 : 0)) : new Uint8Array(doc.lines.length).fill(1));
    if (lost > 0) {
      // The re-read: one more assistant turn (the same command again), then the whole observation.
      out.lostReads++;
      out.cost += ctx;
      ctx += (run.messages[i - 1]?.content.length ?? 0) + m.content.length;
      out.rereadChars += m.content.length;
      shown.recordShown(doc, new Uint8Array(doc.lines.length).fill(1));
      session?.recordShown(doc, new Uint8Array(doc.lines.length).fill(1));
    }
    onRead?.({
      run: run.instance_id,
      repo: run.repo,
      step: i,
      method: method.name,
      kind: read.kind,
      readKind: readKindOf(doc),
      lines: doc.lines.length,
      charsIn: obs.body.length,
      charsOut: text.length,
      gold: gold.length,
      lost,
      docScore: result?.score ?? 0,
      ...(result?.policy ? { policy: result.policy } : {}),
      ...(result?.seenLines ? { seenLines: result.seenLines } : {}),
    });
  }
  return out;
}
