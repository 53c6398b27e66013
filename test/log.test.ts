import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';

describe('createLogger', () => {
  it('writes each message as given on its own line, at its level and above', () => {
    const lines: string[] = [];
    const log = createLogger((text) => lines.push(text));
    log.error('e');
    log.warn('w');
    log.info('i');
    log.debug('d');
    expect(lines).toEqual(['e\n', 'w\n', 'i\n']);
    const all: string[] = [];
    const verbose = createLogger((text) => all.push(text), 'debug');
    verbose.debug('detail');
    expect(all).toEqual(['detail\n']);
    const quiet: string[] = [];
    createLogger((text) => quiet.push(text), 'error').warn('not shown');
    expect(quiet).toEqual([]);
  });
});
