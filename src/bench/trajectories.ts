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
import { pruneOutput } from '../core/output/pruneOutput.js';
import { type ReadKind, readKindOf } from '../core/policy/readPolicy.js';
import { pruneToolOutput } from '../core/pruneToolOutput.js';
import { SessionMemory } from '../core/session/memory.js';
import type { Document, PruneRequest, PruneResult } from '../core/types.js';
import { type OutputKind, outputKindOf, usedLines } from './outputSteps.js';

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
  /** Every other output too (test runs, listings, scripts...), by pruneOutput() with the run's output memory. */
  outputs?: boolean;
  /**
   * Outputs the harness cut to a head and a tail too, each part pruned as an output (not the
   * README rule, which leaves them as they are: skim in front of the harness would see the whole
   * output, which the runs do not record).
   */
  cutOutputs?: boolean;
  /** false: outputs fold by their rules alone (what the learned judgement of plain lines adds is the difference). */
  judge?: false;
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
  {
    name: 'skim-every-output',
    description: 'skim default on reads, and every other output pruned with its command, the thought and the task, remembering earlier runs of a command',
    session: 'memory',
    outputs: true,
    request: (r) => ({ query: r.thought, task: r.task, path: r.path || undefined, firstLine: r.firstLine }),
  },
  {
    name: 'skim-every-output-rules',
    description: 'as skim-every-output, but outputs fold by their rules alone, without the learned judgement of plain lines',
    session: 'memory',
    outputs: true,
    judge: false,
    request: (r) => ({ query: r.thought, task: r.task, path: r.path || undefined, firstLine: r.firstLine }),
  },
  {
    name: 'outputs-only',
    description: 'reads whole; every other output pruned as in skim-every-output',
    session: false,
    outputs: true,
    request: () => null,
  },
  {
    name: 'skim-every-output+cut',
    description: 'as skim-every-output, and the head and the tail of outputs the harness cut pruned too (not the README rule)',
    session: 'memory',
    outputs: true,
    cutOutputs: true,
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
  /** The bill with a prompt cache: context sent before at a tenth, new input in full, the assistant's own words at five times. */
  cachedCost: number;
  /** Outputs other than reads (not cut by the harness), by kind. */
  outputs: Record<OutputKind | 'all', OutputTally>;
  /**
   * The cost each kind of output saved (characters it no longer holds, times the turns that
   * carry them) less what its losses cost (the extra turn and the output again); reads are 'read'.
   */
  costSaved: Record<string, number>;
}

export interface OutputTally {
  outputs: number;
  /** Outputs with a line the agent used next. */
  usedOutputs: number;
  lostOutputs: number;
  charsIn: number;
  charsOut: number;
}

const emptyTally = (): OutputTally => ({ outputs: 0, usedOutputs: 0, lostOutputs: 0, charsIn: 0, charsOut: 0 });

type PruneFn = (req: PruneRequest) => Promise<PruneResult>;

/** A session that counts reads (what the read policy weighs) but has seen nothing (folds nothing). */
class CountingSession extends SessionMemory {
  override seenMask(doc: Document): Uint8Array {
    return new Uint8Array(doc.lines.length);
  }
}

/** One run's replay under one method: its sessions, what its context holds, and its bill so far. */
interface Replay {
  run: TrajectoryRun;
  method: TrajectoryMethod;
  prune: PruneFn;
  /** The reads' session (file memory), as the method asks. */
  session: SessionMemory | undefined;
  /** Outputs share the run's session (its file memory for reads among them, its output memory). */
  outputSession: SessionMemory | undefined;
  /** What the replayed context has shown: path -> file line -> text (for the lost-line exemption). */
  shown: SessionMemory;
  /** Every line of text the replayed context holds (an output line shown before is not lost). */
  shownText: Set<string>;
  out: RunResult;
  /** Assistant turns after each message: how long a message's characters are carried. */
  turnsAfter: number[];
  /** Characters in the context. */
  ctx: number;
  /** Context already sent at the previous assistant turn (cached). */
  sent: number;
}

function newReplay(run: TrajectoryRun, method: TrajectoryMethod, prune: PruneFn): Replay {
  const session = method.session === 'memory' ? new SessionMemory() : method.session === 'counts' ? new CountingSession() : undefined;
  const turnsAfter: number[] = new Array(run.messages.length).fill(0);
  for (let i = run.messages.length - 2; i >= 0; i--) turnsAfter[i] = turnsAfter[i + 1] + (run.messages[i + 1].role === 'assistant' ? 1 : 0);
  return {
    run,
    method,
    prune,
    session,
    outputSession: method.outputs ? (method.session === 'memory' ? session : new SessionMemory()) : undefined,
    shown: new SessionMemory(),
    shownText: new Set<string>(),
    out: {
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
      cachedCost: 0,
      costSaved: {},
      outputs: {
        all: emptyTally(),
        test: emptyTally(),
        listing: emptyTally(),
        script: emptyTally(),
        diff: emptyTally(),
        search: emptyTally(),
        other: emptyTally(),
      },
    },
    turnsAfter,
    ctx: 0,
    sent: 0,
  };
}

/** Replay one run with one method. */
export async function replayRun(run: TrajectoryRun, method: TrajectoryMethod, prune: PruneFn, onRead?: (r: ReadRecord) => void): Promise<RunResult> {
  const stepByMessage = new Map<number, TrajectoryStep>();
  for (const s of run.steps) stepByMessage.set(s.message, s);
  const r = newReplay(run, method, prune);
  for (let i = 0; i < run.messages.length; i++) {
    const m = run.messages[i];
    if (m.role === 'assistant') {
      assistantTurn(r, m.content.length);
      addToContext(r, m.content);
      continue;
    }
    const step = stepByMessage.get(i);
    if (step && !step.read && step.truncated && method.cutOutputs && m.role === 'user') {
      replayCutOutput(r, step, m.content, i);
      continue;
    }
    const obs = step && m.role === 'user' ? splitObservation(m.content) : null;
    if (!step || !obs) {
      addToContext(r, m.content);
      continue;
    }
    if (!step.read) {
      if (!method.outputs || step.truncated) addToContext(r, m.content);
      else await replayOutput(r, step, obs, i);
      continue;
    }
    const record = await replayRead(r, step, step.read, obs, i);
    onRead?.(record);
  }
  return r.out;
}

/** The cost a kind of output saved at message i: characters it no longer holds times the turns that carry them, less what a loss cost. */
function credit(r: Replay, kind: string, i: number, charsIn: number, charsOut: number, lostCost: number): void {
  r.out.costSaved[kind] = (r.out.costSaved[kind] ?? 0) + (charsIn - charsOut) * r.turnsAfter[i] - lostCost;
}

function assistantTurn(r: Replay, words: number): void {
  r.out.cost += r.ctx;
  r.out.cachedCost += 0.1 * r.sent + (r.ctx - r.sent) + 5 * words;
  r.sent = r.ctx + words;
}

function addToContext(r: Replay, text: string): void {
  r.ctx += text.length;
  for (const l of text.split('\n')) r.shownText.add(l);
}

/** What the re-read of message i costs: a turn over the context, then the command and the output carried to the end. */
function rereadCost(r: Replay, i: number): number {
  return r.ctx + ((r.run.messages[i - 1]?.content.length ?? 0) + r.run.messages[i].content.length) * r.turnsAfter[i];
}

/** The re-read a lost line costs: one more assistant turn (the same command again), then the whole observation. */
function reread(r: Replay, i: number): void {
  const command = r.run.messages[i - 1]?.content ?? '';
  assistantTurn(r, command.length);
  addToContext(r, command);
  addToContext(r, r.run.messages[i].content);
  r.out.rereadChars += r.run.messages[i].content.length;
}

/** A file read at message i: pruned as the method asks; lost when a gold line is gone and not in the context. */
async function replayRead(
  r: Replay,
  step: TrajectoryStep,
  read: NonNullable<TrajectoryStep['read']>,
  obs: { head: string; body: string; tail: string },
  i: number,
): Promise<ReadRecord> {
  const { run, method, out, shown, session } = r;
  const firstLine = read.kind === 'file-range' && typeof read.file_lines[0] === 'number' ? read.file_lines[0] : undefined;
  const doc = observedLines(obs.body, read, firstLine);
  const req = method.request({ body: obs.body, thought: step.thought, task: run.task, kind: read.kind, path: read.path, firstLine });
  let text = obs.body;
  let keep: Uint8Array | null = null;
  let result: PruneResult | null = null;
  if (req) {
    try {
      result = await r.prune({ ...req, code: obs.body, session });
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
  addToContext(r, obs.head + text + obs.tail);
  out.reads++;
  out.readCharsIn += obs.body.length;
  out.readCharsOut += text.length;
  if (gold.length > 0) out.goldReads++;
  // (lines folded as moved are in the context at their new numbers now: the marker said where)
  shown.recordShown(doc, keep ? keep.map((v, i) => (v || inContext?.[i] ? 1 : 0)) : new Uint8Array(doc.lines.length).fill(1));
  credit(r, 'read', i, obs.body.length, text.length, lost > 0 ? rereadCost(r, i) : 0);
  if (lost > 0) {
    out.lostReads++;
    reread(r, i);
    shown.recordShown(doc, new Uint8Array(doc.lines.length).fill(1));
    session?.recordShown(doc, new Uint8Array(doc.lines.length).fill(1));
  }
  return {
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
  };
}

/** A cut output: its head and its tail pruned as two outputs of its command, lost as any output. */
function replayCutOutput(r: Replay, step: TrajectoryStep, content: string, i: number): void {
  const { run } = r;
  const parts = /^([\s\S]*?<output_head>\n)([\s\S]*?)(<\/output_head>[\s\S]*?<output_tail>\n)([\s\S]*?)(<\/output_tail>[\s\S]*)$/.exec(content);
  if (!parts) {
    addToContext(r, content);
    return;
  }
  const [, before, head, between, tail, after] = parts;
  const next = run.messages[i + 1]?.role === 'assistant' ? run.messages[i + 1].content : '';
  const shownLines = `${head}\n${tail}`.split('\n');
  const used = usedLines(shownLines.join('\n'), next, step.command);
  const headLines = head.split('\n').length;
  const pruneText = (text: string) => {
    try {
      return pruneOutput({
        text,
        command: step.command ?? undefined,
        query: step.thought,
        task: run.task,
        memory: r.outputSession?.outputs,
        judge: r.method.judge,
      });
    } catch {
      return null;
    }
  };
  const h = pruneText(head);
  const t = pruneText(tail);
  const kept = (k: number) => (k <= headLines ? (h ? h.keepMask[k - 1] : 1) : t ? t.keepMask[k - headLines - 1] : 1);
  const keptMask = shownLines.map((_, i) => kept(i + 1));
  const lost = used.some((k) => !kept(k) && !inContext(r, shownLines[k - 1], shownLines, keptMask));
  const text = before + (h?.text ?? head) + between + (t?.text ?? tail) + after;
  addToContext(r, text);
  countOutput(r, step, { charsIn: head.length + tail.length, charsOut: (h?.text ?? head).length + (t?.text ?? tail).length }, used.length > 0, lost);
  credit(r, outputKindOf(step.command), i, content.length, text.length, lost ? rereadCost(r, i) : 0);
  if (lost) reread(r, i);
}

/**
 * A line is in the context when the run was shown it before or the same pruned output keeps an
 * identical line (a repeat folded as "repeating lines above").
 */
function inContext(r: Replay, line: string, lines: readonly string[], keep: ArrayLike<number>): boolean {
  if (r.shownText.has(line)) return true;
  for (let k = 0; k < lines.length; k++) if (keep[k] && lines[k] === line) return true;
  return false;
}

/** Tally an output (all and its kind): its characters before and after, whether it had a used line and lost one. */
function countOutput(r: Replay, step: TrajectoryStep, chars: { charsIn: number; charsOut: number }, hadUsed: boolean, lost: boolean): void {
  for (const kind of ['all', outputKindOf(step.command)] as const) {
    const t = r.out.outputs[kind];
    t.outputs++;
    t.charsIn += chars.charsIn;
    t.charsOut += chars.charsOut;
    if (hadUsed) t.usedOutputs++;
    if (lost) t.lostOutputs++;
  }
}

/** An output other than a read: pruned with its command; lost when a line the agent used next is gone. */
async function replayOutput(r: Replay, step: TrajectoryStep, obs: { head: string; body: string; tail: string }, i: number): Promise<void> {
  const { run } = r;
  const next = run.messages[i + 1]?.role === 'assistant' ? run.messages[i + 1].content : '';
  const used = usedLines(obs.body, next, step.command);
  let text = obs.body;
  let keep: Uint8Array | null = null;
  try {
    const routed = await pruneToolOutput(
      { text: obs.body, command: step.command ?? undefined, query: step.thought, task: run.task, session: r.outputSession, judge: r.method.judge },
      r.prune,
    );
    text = routed.result.text;
    keep = routed.result.keepMask;
    if (routed.via === 'read') {
      // a read among the outputs: what it shows counts for the reads' lost-line exemption too
      const { path, firstLine } = routed.read;
      r.shown.recordShown(observedLines(obs.body, { kind: 'file', path, file_lines: [], gold_obs_lines: [] }, firstLine), keep);
    }
  } catch {
    // fail open: the output whole
  }
  const bodyLines = obs.body.split('\n');
  const lost = keep ? used.some((k) => !keep![k - 1] && !inContext(r, bodyLines[k - 1], bodyLines, keep!)) : false;
  addToContext(r, obs.head + text + obs.tail);
  countOutput(r, step, { charsIn: obs.body.length, charsOut: text.length }, used.length > 0, lost);
  credit(r, outputKindOf(step.command), i, obs.body.length, text.length, lost ? rereadCost(r, i) : 0);
  if (lost) reread(r, i);
}
