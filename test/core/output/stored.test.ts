/**
 * What the adapters rely on: a marker names a handle only when `skim show` can find the output,
 * handle specs and ranges as markers print them, and stored lines given back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { SkimError } from '../../../src/core/errors.js';
import { NOT_STORED_WARNING, OutputMemory } from '../../../src/core/output/memory.js';
import { pruneOutput } from '../../../src/core/output/pruneOutput.js';
import { findStoredOutput, parseHandleSpec, parseOutputRequest, storedLines } from '../../../src/core/output/stored.js';

/** A pytest run: 300 passing lines around one failure (CRLF, as a Windows runner prints it). */
const RUN = [
  ...Array.from({ length: 300 }, (_, i) => `tests/test_logging.py::test_case_${i} PASSED [${Math.floor(i / 3)}%]`),
  'tests/test_logging.py::test_clear FAILED [100%]',
  'E   AssertionError: caplog.records is not empty after clear()',
  '========================= 1 failed, 300 passed in 2.31s =========================',
].join('\r\n');

const MARKER_HANDLE = /skim show ([0-9a-f]+):(\d+)-(\d+)\]/;

describe('pruneOutput with a session', () => {
  it('stores the output in the session and its markers name the handle that shows the omitted lines', () => {
    const memory = new OutputMemory();
    const r = pruneOutput({ text: RUN, command: 'pytest tests/test_logging.py', query: 'why does test_clear fail?', memory });
    const m = MARKER_HANDLE.exec(r.text);
    expect(m).not.toBeNull();
    expect(m![1]).toBe(r.handle);
    const stored = findStoredOutput(memory, m![1], 'the session');
    const shown = storedLines(stored, { from: Number(m![2]), to: Number(m![3]) });
    expect(shown.text).toBe(
      RUN.split('\r\n')
        .slice(Number(m![2]) - 1, Number(m![3]))
        .join('\r\n') + '\r\n',
    );
  });

  it('an output the session cannot keep gets "not stored" markers and a warning, never a handle that finds nothing', () => {
    // no command to file it under
    const memory = new OutputMemory();
    const r = pruneOutput({ text: RUN, query: 'why does test_clear fail?', memory });
    expect(r.text).toContain(', not stored]');
    expect(r.text).not.toMatch(/skim show/);
    expect(r.handle).toBeNull();
    expect(r.warnings).toContain(NOT_STORED_WARNING);
    expect(r.charsOut).toBe(r.text.length);
    // bigger than the whole output memory
    const small = new OutputMemory({ maxOutputs: 4, maxChars: 1000, maxLines: 100 });
    const big = pruneOutput({ text: RUN, command: 'pytest', memory: small });
    expect(big.text).toContain(', not stored]');
    expect(small.size.outputs).toBe(0);
  });
});

describe('handle specs and stored lines', () => {
  it('reads HANDLE and HANDLE:a-b as markers print them; anything else is a usage error', () => {
    expect(parseHandleSpec('3fa2c1d9e0')).toEqual({ handle: '3fa2c1d9e0' });
    expect(parseHandleSpec('3fa2c1d9e0:15-226')).toEqual({ handle: '3fa2c1d9e0', range: { from: 15, to: 226 } });
    expect(parseHandleSpec('3fa2c1d9e0:7')).toEqual({ handle: '3fa2c1d9e0', range: { from: 7, to: 7 } });
    for (const bad of ['', '3fa2:', '3fa2:9-2', '3fa2:0-3', '3fa2:a-b', '../x:1-2', '3fa2:1-2-3'])
      expect(() => parseHandleSpec(bad), bad).toThrow(expect.objectContaining({ code: 'EUSAGE' }));
  });

  it('a request names its lines in the handle or apart; two different ranges are a usage error', () => {
    expect(parseOutputRequest('3fa2c1d9e0', '4-6')).toEqual({ handle: '3fa2c1d9e0', range: { from: 4, to: 6 } });
    expect(parseOutputRequest('3fa2c1d9e0:4-6', '4-6')).toEqual({ handle: '3fa2c1d9e0', range: { from: 4, to: 6 } });
    expect(parseOutputRequest('3fa2c1d9e0:4-6')).toEqual({ handle: '3fa2c1d9e0', range: { from: 4, to: 6 } });
    expect(() => parseOutputRequest('3fa2c1d9e0:4-6', '10-20')).toThrow(
      expect.objectContaining({ code: 'EUSAGE', message: expect.stringMatching(/give one range/) }),
    );
  });

  it('a range past the end is cut to it; one that starts past it is a usage error; an unknown handle is missing input', () => {
    const memory = new OutputMemory();
    memory.put({ handle: 'abc', command: 'ls', text: 'a\nb\nc', shown: [1, 1, 1] });
    const o = findStoredOutput(memory, 'abc', 'the session');
    expect(storedLines(o, { from: 2, to: 9 })).toEqual({ text: 'b\nc', from: 2, to: 3, lines: 3 });
    expect(() => storedLines(o, { from: 4, to: 5 })).toThrow(expect.objectContaining({ code: 'EUSAGE' }));
    const missing = (() => {
      try {
        findStoredOutput(memory, 'abd', 'session s1');
      } catch (err) {
        return err;
      }
    })();
    expect(missing).toBeInstanceOf(SkimError);
    expect((missing as SkimError).code).toBe('ENOINPUT');
    expect((missing as SkimError).message).toContain('no output abd in session s1');
  });
});

describe('the library', () => {
  it('exports pruneOutput and OutputMemory: an output pruned, kept behind its handle', async () => {
    const lib = await import('../../../src/index.js');
    const memory = new lib.OutputMemory();
    const r: import('../../../src/index.js').OutputResult = lib.pruneOutput({ text: RUN, command: 'pytest', query: 'why does test_clear fail?', memory });
    expect(r.shape).toBe('pytest');
    expect(memory.get(r.handle!)?.text).toBe(RUN);
  });
});
