/**
 * Where one run of the CLI reads and writes: this process's own stdin, stdout and stderr, or, in
 * the daemon (./daemon/server.ts), the ones of the client that sent the command. The read
 * commands write through these and nothing else, so the same code gives the same bytes either way.
 */
import { fstatSync } from 'node:fs';

/** What commander asks about a terminal to lay out help (width) and colour it. */
export interface TerminalInfo {
  /** Columns when the stream is a terminal, else undefined (commander's default width). */
  columns?: number;
  hasColors: boolean;
}

export interface CliStreams {
  /** Write to stdout, resolving once the text is handed on (a pipe's back-pressure). */
  stdout(text: string, encoding?: BufferEncoding): Promise<void>;
  stderr(text: string): void;
  /** All of stdin, under the input cap (SkimError ETOOLARGE over it). */
  readStdin(): Promise<Buffer>;
  /** stdin is a terminal (no input to wait for). */
  stdinIsTTY: boolean;
  /** stdin is a pipe, a file or a socket: input, as grep reads it (a terminal or /dev/null is not). */
  stdinIsReadable: boolean;
  stdoutTerminal: TerminalInfo;
  stderrTerminal: TerminalInfo;
}

function terminalOf(stream: NodeJS.WriteStream): TerminalInfo {
  return { columns: stream.isTTY ? stream.columns : undefined, hasColors: Boolean(stream.isTTY && stream.hasColors?.()) };
}

/** A pipe, a file or a socket on stdin is input; a terminal or /dev/null is not. */
export function stdinIsReadable(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isFile() || st.isSocket();
  } catch {
    return false;
  }
}

/** This process's own streams. */
export const processStreams: CliStreams = {
  stdout: (text, encoding = 'utf8') =>
    new Promise((resolve) => {
      if (process.stdout.write(text, encoding)) resolve();
      else process.stdout.once('drain', () => resolve());
    }),
  stderr: (text) => void process.stderr.write(text),
  readStdin: async () => {
    const { MAX_INPUT_BYTES, readStreamCapped } = await import('../tools/readCapped.js'); // (the daemon's client loads this module)
    return readStreamCapped(process.stdin, MAX_INPUT_BYTES, 'stdin');
  },
  get stdinIsTTY() {
    return Boolean(process.stdin.isTTY);
  },
  get stdinIsReadable() {
    return stdinIsReadable();
  },
  get stdoutTerminal() {
    return terminalOf(process.stdout);
  },
  get stderrTerminal() {
    return terminalOf(process.stderr);
  },
};

let current: CliStreams = processStreams;

/** The streams of the run in progress. */
export function streams(): CliStreams {
  return current;
}

/** Run `fn` with another run's streams (the daemon runs one command at a time). */
export async function withStreams<T>(s: CliStreams, fn: () => Promise<T>): Promise<T> {
  const before = current;
  current = s;
  try {
    return await fn();
  } finally {
    current = before;
  }
}
