/**
 * What a session keeps of outputs: each pruned output whole, behind a handle, so every marker can
 * be expanded (`skim show HANDLE:a-b`); per command, its previous run with the lines the agent was
 * shown, so the same command run again shows what changed; and a hash of every line the session
 * has shown, so a line already in the agent's context need not be sent again. Bounded by outputs,
 * characters and lines, least recently used out first.
 */
import { createHash } from 'node:crypto';
import { isTrivial, lineHash } from './lines.js';

export interface StoredOutput {
  handle: string;
  command: string;
  text: string;
  /** Per line of `text`: 1 when the agent was shown it (verbatim, or folded as shown before). */
  shown: number[];
  /** 'latin1': `text` holds one character per byte of output that was not valid UTF-8 (written back as such). */
  encoding?: 'latin1';
}

export interface OutputMemorySnapshot {
  outputs: StoredOutput[];
  /** Hashes of the lines the session has shown, oldest first. */
  lines?: number[];
}

export interface OutputMemoryLimits {
  maxOutputs: number;
  maxChars: number;
  /** Line hashes remembered. */
  maxLines: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputMemoryLimits = { maxOutputs: 32, maxChars: 1_000_000, maxLines: 20_000 };

/** Estimated bytes of a remembered line hash (a Set entry) and of an output's own record. */
const LINE_HASH_BYTES = 40;
const OUTPUT_BYTES = 256;

/** The warning of an output whose markers cannot name a handle although a session was given. */
export const NOT_STORED_WARNING = 'the output could not be kept in the session (too large, or no command named): its omitted lines cannot be shown later';

/** The key a command's runs share: the command with its spacing normalised. */
export function commandKey(command: string): string {
  return command.trim().replace(/\s+/g, ' ');
}

/** A stable handle for an output: the same command and text always get the same handle. */
export function outputHandle(command: string, text: string): string {
  return createHash('sha256').update(commandKey(command)).update('\0').update(text).digest('hex').slice(0, 10);
}

export class OutputMemory {
  /** handle -> output; Map order is recency (oldest first). */
  private readonly outputs = new Map<string, StoredOutput>();
  private chars = 0;
  /** Hashes of lines shown; Set order is age (oldest first). */
  private readonly lines = new Set<number>();

  constructor(readonly limits: OutputMemoryLimits = DEFAULT_OUTPUT_LIMITS) {}

  static fromSnapshot(s: OutputMemorySnapshot | undefined, limits?: OutputMemoryLimits): OutputMemory {
    const m = new OutputMemory(limits);
    if (s) m.merge(s);
    return m;
  }

  /** Take in what another copy of this memory recorded. */
  merge(s: OutputMemorySnapshot): void {
    for (const o of s.outputs ?? []) this.put(o);
    for (const h of s.lines ?? []) this.addHash(h);
  }

  snapshot(): OutputMemorySnapshot {
    return { outputs: [...this.outputs.values()], lines: [...this.lines] };
  }

  /** Outputs, characters and line hashes held, and the bytes they take (estimated as session memory counts them). */
  get size(): { outputs: number; chars: number; lines: number; bytes: number } {
    let bytes = this.lines.size * LINE_HASH_BYTES;
    for (const o of this.outputs.values()) bytes += OUTPUT_BYTES + 2 * (o.text.length + o.command.length) + 8 * o.shown.length;
    return { outputs: this.outputs.size, chars: this.chars, lines: this.lines.size, bytes };
  }

  get(handle: string): StoredOutput | undefined {
    return this.outputs.get(handle);
  }

  /** The latest stored run of this command. */
  previousRun(command: string): StoredOutput | undefined {
    const key = commandKey(command);
    let last: StoredOutput | undefined;
    for (const o of this.outputs.values()) if (o.command === key) last = o;
    return last;
  }

  /**
   * Can an output of this command be kept behind a handle? It needs a command to be filed under,
   * and must fit in the memory on its own; an output that cannot be kept gets markers that say so.
   */
  canKeep(command: string, text: string): boolean {
    return commandKey(command) !== '' && text.length <= this.limits.maxChars;
  }

  /** Was this line shown earlier in the session (trivial lines never count)? */
  hasShown(line: string): boolean {
    return !isTrivial(line) && this.lines.has(lineHash(line));
  }

  /** Remember that these lines were shown. */
  recordShown(lines: Iterable<string>): void {
    for (const l of lines) if (!isTrivial(l)) this.addHash(lineHash(l));
  }

  private addHash(h: number): void {
    this.lines.delete(h);
    this.lines.add(h);
    if (this.lines.size > this.limits.maxLines) this.lines.delete(this.lines.values().next().value as number);
  }

  /** Store an output (it becomes the most recent); one that cannot be kept (canKeep) is not stored and evicts nothing. */
  put(o: StoredOutput): void {
    if (!this.canKeep(o.command, o.text)) return;
    const entry = { ...o, command: commandKey(o.command) };
    const old = this.outputs.get(entry.handle);
    if (old) {
      this.outputs.delete(entry.handle);
      this.chars -= old.text.length;
    }
    this.outputs.set(entry.handle, entry);
    this.chars += entry.text.length;
    for (const [h, v] of this.outputs) {
      if (this.outputs.size <= this.limits.maxOutputs && this.chars <= this.limits.maxChars) break;
      if (h === entry.handle) continue;
      this.outputs.delete(h);
      this.chars -= v.text.length;
    }
  }

  /**
   * The agent's context was cut (compaction): nothing it was shown can be assumed to be there any
   * more, so nothing folds as shown before; the stored outputs stay, so markers can still be
   * expanded.
   */
  forgetShown(): void {
    this.lines.clear();
    for (const o of this.outputs.values()) o.shown = o.shown.map(() => 0);
  }

  /** Forget everything, stored outputs included. */
  clear(): void {
    this.outputs.clear();
    this.lines.clear();
    this.chars = 0;
  }
}
