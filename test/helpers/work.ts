/**
 * Work bounds by counting, not by the clock. A pattern matcher that is linear in the line reads
 * each character a bounded number of times; a backtracking one (a JavaScript RegExp) may never
 * return. `countMatchWork` counts the character reads (String.prototype.charCodeAt, how re2js steps
 * through its input) while `fn` runs, and stops a JavaScript RegExp that is handed the hostile line
 * (`guard.line`; only one whose source `guard.source` accepts, when given: code around the matcher
 * may split lines with fixed expressions) with an error instead of letting it hang.
 */

export interface MatchWork<T> {
  value: T;
  /** Characters read (charCodeAt calls) while fn ran. */
  reads: number;
}

export class BacktrackingRegExpError extends Error {}

export interface RegExpGuard {
  /** The hostile line. */
  line: string;
  /** Which RegExps may not see it (default: all). */
  source?: (source: string) => boolean;
}

function withCounting<T>(guard: RegExpGuard | undefined, run: () => T, after: (counted: () => number) => void): T {
  const charCodeAt = String.prototype.charCodeAt;
  const exec = RegExp.prototype.exec;
  let reads = 0;
  String.prototype.charCodeAt = function (this: string, index: number) {
    reads++;
    return charCodeAt.call(this, index);
  };
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    if (guard && typeof input === 'string' && input.includes(guard.line) && (guard.source?.(this.source) ?? true))
      throw new BacktrackingRegExpError(`a JavaScript RegExp (${this.source.slice(0, 60)}) was run on the hostile line`);
    return exec.call(this, input);
  };
  const restore = () => {
    String.prototype.charCodeAt = charCodeAt;
    RegExp.prototype.exec = exec;
  };
  try {
    const value = run();
    if (value instanceof Promise) {
      return value.finally(() => {
        restore();
        after(() => reads);
      }) as T;
    }
    restore();
    after(() => reads);
    return value;
  } catch (err) {
    restore();
    throw err;
  }
}

/** Run `fn` counting its character reads; a RegExp run on the guarded line throws. */
export function countMatchWork<T>(fn: () => T, guard?: RegExpGuard): MatchWork<T> {
  let reads = 0;
  const value = withCounting(guard, fn, (counted) => (reads = counted()));
  return { value, reads };
}

/** The same for an async `fn`. */
export async function countMatchWorkAsync<T>(fn: () => Promise<T>, guard?: RegExpGuard): Promise<MatchWork<T>> {
  let reads = 0;
  const value = await withCounting(guard, fn, (counted) => (reads = counted()));
  return { value, reads };
}
