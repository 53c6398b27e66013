/**
 * Typed errors handled at one boundary per adapter (CLI exit codes, HTTP status codes).
 * Thrown only for misuse (bad arguments, missing files); problems in the content become warnings.
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
