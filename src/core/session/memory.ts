/**
 * Session memory: what one agent session has already been shown, per file path and line number.
 *
 * A later read of the same file collapses runs of lines that were shown before and have not
 * changed into one "unchanged since an earlier read" marker: those lines are still in the agent's
 * context, so leaving them out costs nothing. A line counts as seen only when the same path showed
 * the same text at the same line number; an edit in between changes the text (or shifts the
 * numbers), and the line is shown again. Memory is bounded (files, characters and estimated bytes,
 * oldest file out first) and never crosses sessions: each session is its own SessionMemory.
 */
import { OutputMemory, type OutputMemorySnapshot } from '../output/memory.js';
import type { Document, PruneRequest } from '../types.js';

/**
 * A serializable snapshot: per file, its shown [line number, text] pairs and how often the session
 * read it, files in least-recently-read order; and how many reads the session made.
 */
export interface SessionSnapshot {
  files: [path: string, lines: [number, string][], reads?: number][];
  reads?: number;
  /** Keys (readKeyOf) of the session's latest reads, oldest first. */
  recent?: string[];
  /** What the session keeps of command outputs (src/core/output/memory.ts). */
  outputs?: OutputMemorySnapshot;
}

/**
 * What one copy of a session recorded since it was made (SessionMemory.changes): what a store
 * applies to the session as it is now, so reads made in parallel add up instead of overwriting.
 */
export interface SessionChanges {
  /** The whole memory was forgotten (before the rest is applied). */
  forgetAll: boolean;
  /** Paths forgotten (before `files` is applied). */
  forget: string[];
  /** Lines shown and reads counted since, per path. */
  files: [path: string, lines: [number, string][], reads: number][];
  /** Reads counted since. */
  reads: number;
  /** Read keys noted since, oldest first. */
  recent: string[];
  /** The outputs' memory of this copy (merged into the session as it is). */
  outputs?: OutputMemorySnapshot;
}

export interface SessionLimits {
  /** Files remembered per session (oldest read evicted first). */
  maxFiles: number;
  /** Characters of line text remembered per session. */
  maxChars: number;
  /** Estimated bytes of memory per session (SessionMemory.size.bytes); none by default. */
  maxBytes?: number;
}

/**
 * What remembered lines and files cost in memory, as an upper estimate: V8 keeps a string in one or
 * two bytes per character, and a Map entry with its string header measures 40-64 bytes (node 22,
 * flat strings of 0-100 characters).
 */
export const LINE_BYTES = 64;
export const FILE_BYTES = 256;
const lineBytes = (text: string) => LINE_BYTES + 2 * text.length;
const fileBytes = (path: string) => FILE_BYTES + 2 * path.length;

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxFiles: 256, maxChars: 4_000_000 };

/** Read keys remembered per session: a read asked again among these is served in full. */
export const RECENT_READS = 64;

/**
 * What makes two reads the same read: the input text and every field that shapes the output (a
 * 64-bit FNV-1a hash, so the key is short and the store holds no text for it).
 */
export function readKeyOf(req: PruneRequest): string {
  const { code, session: _session, explain: _explain, ...fields } = req;
  const text = `${JSON.stringify(fields)}\u0000${code}`;
  // two 32-bit FNV-1a lanes with different offsets make a 64-bit key
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** "./a/b.py" and "a//b.py" name the same file as "a/b.py". */
export function normalizeSessionPath(path: string): string {
  let p = path.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  return p;
}

/** Moved lines fold only in runs at least this long: a lone blank line or brace matches anywhere. */
export const MIN_MOVED_RUN = 3;
/** Earlier positions looked at per line text (bounds the mapping's work on repetitive files). */
const MAX_POSITIONS_PER_TEXT = 8;

/**
 * Mark in `seen` (with their offset in `shifts`) the lines of a segment that were shown at
 * another line number: runs of consecutive lines shown in the same order at one offset. Work is
 * bounded by the segment's lines times MAX_POSITIONS_PER_TEXT.
 */
function mapMoved(doc: Document, segLines: number[], shown: Map<number, string>, seen: Uint8Array, shifts: Int32Array): void {
  const at = new Map<string, number[]>();
  for (const [no, text] of shown) {
    const list = at.get(text);
    if (!list) at.set(text, [no]);
    else if (list.length < MAX_POSITIONS_PER_TEXT) list.push(no);
  }
  const used = new Set<number>();
  for (const i of segLines) if (seen[i]) used.add(doc.lines[i].lineNo!);
  for (let k = 0; k < segLines.length; ) {
    const first = doc.lines[segLines[k]];
    if (seen[segLines[k]] || first.lineNo === null) {
      k++;
      continue;
    }
    // the longest run from here at any offset its text was shown at
    let best = 0;
    let bestShift = 0;
    for (const earlier of at.get(first.text) ?? []) {
      const shift = earlier - first.lineNo;
      if (shift === 0) continue;
      let len = 0;
      while (k + len < segLines.length) {
        const l = doc.lines[segLines[k + len]];
        if (l.lineNo === null || seen[segLines[k + len]] || used.has(l.lineNo + shift) || shown.get(l.lineNo + shift) !== l.text) break;
        len++;
      }
      if (len > best) [best, bestShift] = [len, shift];
    }
    if (best < MIN_MOVED_RUN) {
      k++;
      continue;
    }
    for (let j = k; j < k + best; j++) {
      seen[segLines[j]] = 1;
      shifts[segLines[j]] = bestShift;
      used.add(doc.lines[segLines[j]].lineNo! + bestShift);
    }
    k += best;
  }
}

/** What the session knows of one file. */
interface FileMemory {
  /** line number -> the text shown there */
  lines: Map<number, string>;
  /** reads of this path so far */
  reads: number;
}

export class SessionMemory {
  /** path -> what was shown of it; Map order is recency order (oldest first). */
  private readonly files = new Map<string, FileMemory>();
  private chars = 0;
  /** Estimated bytes held (lineBytes and fileBytes of everything remembered). */
  private bytes = 0;
  /** Reads (prune calls) the session has made. */
  private reads = 0;
  /** Command outputs this session was shown, behind their handles. */
  readonly outputs = new OutputMemory();
  /** Keys of the latest reads (readKeyOf), oldest first, at most RECENT_READS. */
  private recent: string[] = [];
  /** What this copy recorded since it was made (see changes()). */
  private changed = {
    forgetAll: false,
    forget: new Set<string>(),
    files: new Map<string, { lines: Map<number, string>; reads: number }>(),
    reads: 0,
    recent: [] as string[],
  };

  /**
   * `canonical`: the file a path names, for the key (an adapter with a file system resolves it
   * against the working directory and symlinks, so `a/x.py`, `../a/x.py` and a link to it are one
   * file); paths are shown as the read names them.
   */
  constructor(
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly canonical?: (path: string) => string,
  ) {}

  /** The key a path is remembered under. */
  keyOf(path: string): string {
    return normalizeSessionPath(this.canonical ? this.canonical(path) : path);
  }

  static fromSnapshot(snapshot: SessionSnapshot | undefined, limits?: SessionLimits, canonical?: (path: string) => string): SessionMemory {
    const m = new SessionMemory(limits, canonical);
    if (snapshot) m.merge(snapshot);
    return m;
  }

  snapshot(): SessionSnapshot {
    return {
      files: [...this.files].map(([path, f]) => [path, [...f.lines], f.reads]),
      reads: this.reads,
      recent: [...this.recent],
      outputs: this.outputs.snapshot(),
    };
  }

  /** The part of the memory about these files (paths as a read names them): Map lookups only. */
  snapshotOf(paths: Iterable<string>): SessionSnapshot {
    const files: SessionSnapshot['files'] = [];
    const done = new Set<string>();
    for (const path of paths) {
      const p = this.keyOf(path);
      const f = this.files.get(p);
      if (f && !done.has(p)) files.push([p, [...f.lines], f.reads]);
      done.add(p);
    }
    return { files, reads: this.reads, recent: [...this.recent] };
  }

  /** Take in what another copy of (part of) this memory recorded. */
  merge(snapshot: SessionSnapshot): void {
    for (const [path, lines, reads] of snapshot.files) {
      const file = this.store(path, lines);
      file.reads = Math.max(file.reads, reads ?? 0);
    }
    this.reads = Math.max(this.reads, snapshot.reads ?? 0);
    for (const key of snapshot.recent ?? []) this.noteKey(key);
    if (snapshot.outputs) this.outputs.merge(snapshot.outputs);
  }

  get size(): { files: number; chars: number; bytes: number } {
    // the outputs' memory is bounded by its own limits; it counts toward the session's bytes
    return { files: this.files.size, chars: this.chars, bytes: this.bytes + this.outputs.size.bytes };
  }

  /** Reads the session made so far. */
  get readCount(): number {
    return this.reads;
  }

  /** Reads of this path so far. */
  readsOf(path: string | undefined): number {
    return path === undefined ? 0 : (this.files.get(this.keyOf(path))?.reads ?? 0);
  }

  /** Count one read (of `path`, when the read is of one file; `key`: its readKeyOf). */
  noteRead(path: string | undefined, key?: string): void {
    this.reads++;
    this.changed.reads++;
    if (path !== undefined) {
      this.recordLines(path, []).reads++;
      this.changedFile(path).reads++;
    }
    if (key !== undefined) {
      this.noteKey(key);
      this.changed.recent.push(key);
    }
  }

  /**
   * Forget what was shown of `path` (every file without one): the agent's copy is gone or may
   * differ (its context was compacted, or a read was shown that could not be recorded), so nothing
   * of it folds until shown again. Read counts and read keys stay.
   */
  forget(path?: string): void {
    if (path === undefined) {
      for (const p of [...this.files.keys()]) this.drop(p);
      this.outputs.forgetShown();
      this.changed.forgetAll = true;
      this.changed.forget.clear();
      this.changed.files.clear();
      return;
    }
    const key = this.keyOf(path);
    this.drop(key);
    this.changed.forget.add(key);
    this.changed.files.delete(key);
  }

  private drop(key: string): void {
    const file = this.files.get(key);
    if (!file) return;
    this.files.delete(key);
    this.bytes -= fileBytes(key);
    for (const t of file.lines.values()) {
      this.chars -= t.length;
      this.bytes -= lineBytes(t);
    }
  }

  /** What this copy recorded since it was made: see SessionChanges. */
  changes(): SessionChanges {
    const c = this.changed;
    return {
      forgetAll: c.forgetAll,
      forget: [...c.forget],
      files: [...c.files].map(([path, f]) => [path, [...f.lines], f.reads]),
      reads: c.reads,
      recent: [...c.recent],
      outputs: this.outputs.snapshot(),
    };
  }

  /**
   * Apply what another copy recorded (its changes()) on top of this memory. They count among this
   * copy's changes too: a copy that took in a worker's read hands both on to the store it came from.
   */
  applyChanges(c: SessionChanges): void {
    if (c.forgetAll) this.forget();
    for (const p of c.forget) this.forget(p);
    for (const [path, lines, reads] of c.files) {
      this.recordLines(path, lines).reads += reads;
      this.changedFile(path).reads += reads;
    }
    this.reads += c.reads;
    this.changed.reads += c.reads;
    for (const key of c.recent) {
      this.noteKey(key);
      this.changed.recent.push(key);
    }
    if (c.outputs) this.outputs.merge(c.outputs);
  }

  /** Start counting changes afresh (the memory is the stored session itself: nothing to hand on). */
  clearChanges(): void {
    const c = this.changed;
    c.forgetAll = false;
    c.forget.clear();
    c.files.clear();
    c.reads = 0;
    c.recent = [];
  }

  private changedFile(path: string): { lines: Map<number, string>; reads: number } {
    const key = this.keyOf(path);
    let f = this.changed.files.get(key);
    if (!f) this.changed.files.set(key, (f = { lines: new Map(), reads: 0 }));
    return f;
  }

  /** Was this very read (readKeyOf) made before, recently? Asking again says the agent's copy is gone. */
  hasRead(key: string): boolean {
    return this.recent.includes(key);
  }

  private noteKey(key: string): void {
    const at = this.recent.indexOf(key);
    if (at !== -1) this.recent.splice(at, 1);
    this.recent.push(key);
    if (this.recent.length > RECENT_READS) this.recent.shift();
  }

  /** Was this exact text shown at this line of this file earlier in the session? */
  hasSeen(path: string, lineNo: number, text: string): boolean {
    return this.files.get(this.keyOf(path))?.lines.get(lineNo) === text;
  }

  /**
   * Per input line of `doc`: 1 when that line was shown before, unchanged, in this session. Only
   * file reads collapse: grep output is an index of locations the agent navigates by, and each of
   * its lines costs about what a marker would.
   *
   * With `shifts`, lines that only moved since they were shown (lines inserted or deleted above
   * them) count too: shifts[i] is then the line's earlier number minus its current one. The file
   * as shown is mapped to the current one run by run: a run of at least MIN_MOVED_RUN consecutive
   * lines whose texts were shown, in the same order, at one offset (a hunk of a line diff), each
   * earlier line used once. Lines at their own number need no run.
   */
  seenMask(doc: Document, shifts?: Int32Array): Uint8Array {
    const seen = new Uint8Array(doc.lines.length);
    for (const seg of doc.segments) {
      if (!seg.path || !seg.contiguous) continue;
      const lines = this.files.get(this.keyOf(seg.path))?.lines;
      if (!lines) continue;
      for (const i of seg.lines) {
        const l = doc.lines[i];
        if (l.lineNo !== null && lines.get(l.lineNo) === l.text) seen[i] = 1;
      }
      if (shifts) mapMoved(doc, seg.lines, lines, seen, shifts);
    }
    return seen;
  }

  /** Remember the lines of `doc` that the output shows (mask 1), by file path and line number. */
  recordShown(doc: Document, mask: Uint8Array): void {
    for (const seg of doc.segments) {
      if (!seg.path) continue;
      const shown: [number, string][] = [];
      for (const i of seg.lines) {
        const l = doc.lines[i];
        if (mask[i] && l.lineNo !== null) shown.push([l.lineNo, l.text]);
      }
      if (shown.length > 0) this.recordLines(seg.path, shown);
    }
  }

  /** Remember these lines of a file (the file becomes the most recently read); returns its entry. */
  recordLines(path: string, lines: [number, string][]): FileMemory {
    if (lines.length > 0) {
      const changed = this.changedFile(path).lines;
      for (const [no, text] of lines) changed.set(no, text);
    }
    return this.store(path, lines);
  }

  /** recordLines without counting it among this copy's changes (a snapshot being read in). */
  private store(path: string, lines: [number, string][]): FileMemory {
    const key = this.keyOf(path);
    let file = this.files.get(key);
    if (file)
      this.files.delete(key); // re-insert: most recent last
    else {
      file = { lines: new Map(), reads: 0 };
      this.bytes += fileBytes(key);
    }
    this.files.set(key, file);
    for (const [no, text] of lines) {
      const old = file.lines.get(no);
      if (old !== undefined) {
        this.chars -= old.length;
        this.bytes -= lineBytes(old);
      }
      file.lines.set(no, text);
      this.chars += text.length;
      this.bytes += lineBytes(text);
    }
    this.evict(key);
    return file;
  }

  /** Oldest files out until within the limits; the file just recorded stays while it fits alone. */
  private evict(keep: string): void {
    const maxBytes = this.limits.maxBytes ?? Number.POSITIVE_INFINITY;
    const fits = () => this.chars <= this.limits.maxChars && this.bytes <= maxBytes;
    for (const path of this.files.keys()) {
      if (this.files.size <= this.limits.maxFiles && fits()) return;
      if (path === keep && fits()) continue;
      this.drop(path);
    }
  }
}
