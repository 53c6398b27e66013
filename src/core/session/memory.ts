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
import type { Document } from '../types.js';

/**
 * A serializable snapshot: per file, its shown [line number, text] pairs and how often the session
 * read it, files in least-recently-read order; and how many reads the session made.
 */
export interface SessionSnapshot {
  files: [path: string, lines: [number, string][], reads?: number][];
  reads?: number;
  /** What the session keeps of command outputs (src/core/output/memory.ts). */
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

/** "./a/b.py" and "a//b.py" name the same file as "a/b.py". */
export function normalizeSessionPath(path: string): string {
  let p = path.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  return p;
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

  constructor(readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS) {}

  static fromSnapshot(snapshot: SessionSnapshot | undefined, limits?: SessionLimits): SessionMemory {
    const m = new SessionMemory(limits);
    if (snapshot) m.merge(snapshot);
    return m;
  }

  snapshot(): SessionSnapshot {
    return { files: [...this.files].map(([path, f]) => [path, [...f.lines], f.reads]), reads: this.reads, outputs: this.outputs.snapshot() };
  }

  /** The part of the memory about these files (paths as a read names them): Map lookups only. */
  snapshotOf(paths: Iterable<string>): SessionSnapshot {
    const files: SessionSnapshot['files'] = [];
    const done = new Set<string>();
    for (const path of paths) {
      const p = normalizeSessionPath(path);
      const f = this.files.get(p);
      if (f && !done.has(p)) files.push([p, [...f.lines], f.reads]);
      done.add(p);
    }
    return { files, reads: this.reads };
  }

  /** Take in what another copy of (part of) this memory recorded. */
  merge(snapshot: SessionSnapshot): void {
    for (const [path, lines, reads] of snapshot.files) {
      const file = this.recordLines(path, lines);
      file.reads = Math.max(file.reads, reads ?? 0);
    }
    this.reads = Math.max(this.reads, snapshot.reads ?? 0);
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
    return path === undefined ? 0 : (this.files.get(normalizeSessionPath(path))?.reads ?? 0);
  }

  /** Count one read (of `path`, when the read is of one file). */
  noteRead(path: string | undefined): void {
    this.reads++;
    if (path !== undefined) this.recordLines(path, []).reads++;
  }

  /** Was this exact text shown at this line of this file earlier in the session? */
  hasSeen(path: string, lineNo: number, text: string): boolean {
    return this.files.get(normalizeSessionPath(path))?.lines.get(lineNo) === text;
  }

  /**
   * Per input line of `doc`: 1 when that line was shown before, unchanged, in this session. Only
   * file reads collapse: grep output is an index of locations the agent navigates by, and each of
   * its lines costs about what a marker would.
   */
  seenMask(doc: Document): Uint8Array {
    const seen = new Uint8Array(doc.lines.length);
    for (const seg of doc.segments) {
      if (!seg.path || !seg.contiguous) continue;
      const lines = this.files.get(normalizeSessionPath(seg.path))?.lines;
      if (!lines) continue;
      for (const i of seg.lines) {
        const l = doc.lines[i];
        if (l.lineNo !== null && lines.get(l.lineNo) === l.text) seen[i] = 1;
      }
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
    const key = normalizeSessionPath(path);
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
    for (const [path, file] of this.files) {
      if (this.files.size <= this.limits.maxFiles && fits()) return;
      if (path === keep && fits()) continue;
      this.files.delete(path);
      this.bytes -= fileBytes(path);
      for (const t of file.lines.values()) {
        this.chars -= t.length;
        this.bytes -= lineBytes(t);
      }
    }
  }
}
