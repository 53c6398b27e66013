/** One error type, translated per adapter: every code has an exit code and an HTTP status, and crosses threads intact. */
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, errorFromWire, HTTP_STATUS, isSkimErrorCode, SkimError } from '../../src/core/errors.js';

describe('SkimError', () => {
  it('every code has an exit code and an HTTP status', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(Object.keys(EXIT_CODES).sort());
    expect(EXIT_CODES.EUSAGE).toBe(64);
    expect(EXIT_CODES.ENOINPUT).toBe(66);
    expect(HTTP_STATUS.EUSAGE).toBe(400);
    expect(HTTP_STATUS.ETOOLARGE).toBe(413);
  });

  it('comes back from a worker thread as itself; anything else as a plain Error', () => {
    const back = errorFromWire('give one budget', 'EUSAGE');
    expect(back).toBeInstanceOf(SkimError);
    expect(back).toMatchObject({ message: 'give one budget', code: 'EUSAGE' });
    for (const code of [undefined, 'ENOENT', 42]) {
      const other = errorFromWire('boom', code);
      expect(other).not.toBeInstanceOf(SkimError);
      expect(other.message).toBe('boom');
    }
    expect(isSkimErrorCode('EOUTSIDE')).toBe(true);
    expect(isSkimErrorCode('toString')).toBe(false);
  });
});
