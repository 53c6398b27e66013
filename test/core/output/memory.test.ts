import { describe, expect, it } from 'vitest';
import { commandKey, OutputMemory, outputHandle } from '../../../src/core/output/memory.js';
import { SessionMemory } from '../../../src/core/session/memory.js';

const stored = (i: number, size = 10) => ({ handle: `h${i}`, command: `cmd ${i}`, text: 'x'.repeat(size), shown: [1] });

describe('OutputMemory', () => {
  it('keeps at most maxOutputs outputs and maxChars characters, least recently stored out first', () => {
    const m = new OutputMemory({ maxOutputs: 3, maxChars: 25, maxLines: 10 });
    for (let i = 0; i < 5; i++) m.put(stored(i));
    expect(m.size.outputs).toBe(2); // 3 x 10 characters is over 25
    expect(m.get('h4')).toBeDefined();
    expect(m.get('h0')).toBeUndefined();
    m.put(stored(9, 100)); // larger than the whole budget: not kept, and nothing evicted for it
    expect(m.get('h9')).toBeUndefined();
    expect(m.get('h4')).toBeDefined();
    expect(m.size.chars).toBeLessThanOrEqual(25);
  });

  it('remembers at most maxLines shown lines, and never trivial ones', () => {
    const m = new OutputMemory({ maxOutputs: 3, maxChars: 100, maxLines: 2 });
    m.recordShown(['first line', 'second line', 'third line', 'ok', '']);
    expect(m.size.lines).toBe(2);
    expect(m.hasShown('first line')).toBe(false);
    expect(m.hasShown('third line')).toBe(true);
    expect(m.hasShown('ok')).toBe(false);
  });

  it('finds the previous run of a command whatever its spacing, and survives a snapshot', () => {
    const m = new OutputMemory();
    m.put({ handle: outputHandle('pytest  -x', 'a\n'), command: 'pytest  -x', text: 'a\n', shown: [1] });
    expect(commandKey(' pytest   -x ')).toBe('pytest -x');
    expect(m.previousRun('pytest -x')?.text).toBe('a\n');
    const s = new SessionMemory();
    s.outputs.merge(m.snapshot());
    expect(SessionMemory.fromSnapshot(JSON.parse(JSON.stringify(s.snapshot()))).outputs.previousRun('pytest -x')?.text).toBe('a\n');
  });

  it('gives the same handle to the same command and text, another to another', () => {
    expect(outputHandle('ls', 'a')).toBe(outputHandle(' ls ', 'a'));
    expect(outputHandle('ls', 'a')).not.toBe(outputHandle('ls', 'b'));
  });

  it('after a compaction nothing counts as shown, and the stored outputs can still be expanded', () => {
    const m = new OutputMemory();
    m.put(stored(1));
    m.recordShown(['a shown line']);
    m.forgetShown();
    expect(m.hasShown('a shown line')).toBe(false);
    expect(m.get('h1')?.text).toBe('xxxxxxxxxx');
    expect(m.get('h1')?.shown).toEqual([0]);
  });

  it('forgets everything on clear()', () => {
    const m = new OutputMemory();
    m.put(stored(1));
    m.recordShown(['a shown line']);
    m.clear();
    expect(m.size).toEqual({ outputs: 0, chars: 0, lines: 0, bytes: 0 });
  });
});
