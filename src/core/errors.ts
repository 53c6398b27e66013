/**
 * The one error type of skim: thrown where the problem is found (a bad argument, a missing file, a
 * path outside the workspace), carried with its code across worker threads, and translated once
 * per adapter: the CLI into exit codes (EXIT_CODES), HTTP into status codes (HTTP_STATUS), MCP into
 * tool errors. Only misuse is an error; problems in the content become warnings.
 */
export type SkimErrorCode =
  | 'EUSAGE' // bad arguments / request fields
  | 'ENOINPUT' // missing file, unreadable path
  | 'EISDIR' // a directory where a file was expected
  | 'ENOTFILE' // a FIFO, socket or device where a regular file was expected
  | 'EOUTSIDE' // a path that escapes the workspace root
  | 'ETOOLARGE'; // input over a hard limit

export class SkimError extends Error {
  constructor(
    message: string,
    readonly code: SkimErrorCode,
  ) {
    super(message);
    this.name = 'SkimError';
  }
}

/** sysexits-style exit codes for the CLI. */
export const EXIT_CODES: Record<SkimErrorCode, number> = {
  EUSAGE: 64,
  ENOINPUT: 66,
  EISDIR: 66,
  ENOTFILE: 66,
  EOUTSIDE: 77,
  ETOOLARGE: 65,
};

/** The exit code of anything else that escapes a command: an internal error (EX_SOFTWARE). */
export const EXIT_INTERNAL = 70;

/** The exit code when the output could not be written (EX_IOERR). */
export const EXIT_OUTPUT = 74;

/** HTTP status codes of the same errors. */
export const HTTP_STATUS: Record<SkimErrorCode, 400 | 403 | 404 | 413> = {
  EUSAGE: 400,
  ENOINPUT: 404,
  EISDIR: 400,
  ENOTFILE: 400,
  EOUTSIDE: 403,
  ETOOLARGE: 413,
};

export function isSkimErrorCode(code: unknown): code is SkimErrorCode {
  return typeof code === 'string' && Object.hasOwn(EXIT_CODES, code);
}

/**
 * An error as it crosses a thread (a message and maybe a code) back into a SkimError when it was
 * one, else a plain Error (an internal error on the other side).
 */
export function errorFromWire(message: string, code: unknown): Error {
  return isSkimErrorCode(code) ? new SkimError(message, code) : new Error(message);
}
