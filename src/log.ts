/**
 * A small logger for diagnostics on stderr (progress, warnings, debug detail), apart from what a
 * command prints as its contract (its output, its error message). Each message is written as
 * given, one line, so a text a user or a test reads stays the same whichever way it is written.
 */

/** Levels, most severe first: a logger writes the messages at its level and above. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  readonly level: LogLevel;
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** A logger writing each message at `level` or above through `write` (the message and a newline). */
export function createLogger(write: (text: string) => void, level: LogLevel = 'info'): Logger {
  const shown = LOG_LEVELS.indexOf(level);
  const at = (l: LogLevel) => (LOG_LEVELS.indexOf(l) <= shown ? (message: string) => write(`${message}\n`) : () => {});
  return { level, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
