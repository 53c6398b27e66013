/**
 * This process's own standard streams: a terminal's shape (commander lays out and colours help by
 * it), whether stdin is input, what a failed write to stdout does. Kept apart from ./io.ts so that
 * the daemon's client (./daemon/client.ts), which loads no commander, uses the same rules.
 */
import { fstatSync } from 'node:fs';
import { EXIT_OUTPUT } from '../core/errors.js';

/** What commander asks of a terminal to lay out help (its width) and colour it. */
export interface TerminalInfo {
  /** Columns when the stream is a terminal, else undefined (commander's default width). */
  columns?: number;
  hasColors: boolean;
}

/** A stream's terminal shape (a pipe or a file: no columns, no colours). */
export function terminalOf(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; hasColors?: () => boolean }): TerminalInfo {
  return { columns: stream.isTTY ? stream.columns : undefined, hasColors: Boolean(stream.isTTY && stream.hasColors?.()) };
}

/** A pipe, a file or a socket on this process's stdin (fd 0) is input (as grep reads it); a terminal or /dev/null is not. */
export function processStdinIsReadable(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isFile() || st.isSocket();
  } catch {
    return false;
  }
}

/**
 * `skim cat big.py | head`: the reader went away. Stop quietly, like cat does on SIGPIPE, once
 * `beforeExit` has run (session memory notes that the read was not shown); any other failure to
 * write is said on stderr and exits EXIT_OUTPUT.
 */
export function guardStdout(beforeExit: () => Promise<void> = async () => {}): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    void beforeExit().finally(() => {
      if (err.code === 'EPIPE') process.exit(0);
      process.stderr.write(`skim: cannot write output: ${err.message}\n`);
      process.exit(EXIT_OUTPUT);
    });
  });
}
