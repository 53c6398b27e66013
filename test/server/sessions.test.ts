/** The server's session store: bounded in bytes and idle time, sessions namespaced per client. */
import { describe, expect, it } from 'vitest';
import { FILE_BYTES, LINE_BYTES, type SessionMemory } from '../../src/core/session/memory.js';
import { MemorySessionStore } from '../../src/server/sessions.js';

/** Bytes of a session counted from what it holds (its snapshot), not from its own counters. */
function countedBytes(id: string, client: string, memory: SessionMemory): number {
  let bytes = 512 + 2 * (client.length + 1 + id.length);
  for (const [path, lines] of memory.snapshot().files) {
    bytes += FILE_BYTES + 2 * path.length;
    for (const [, text] of lines) bytes += LINE_BYTES + 2 * text.length;
  }
  return bytes;
}

/** A small deterministic random source (xorshift). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('MemorySessionStore', () => {
  it('gives each id its own memory and keeps it while used; an idle one is forgotten', () => {
    let t = 0;
    const store = new MemorySessionStore({ idleMs: 100 }, () => t);
    const a = store.get('a');
    a.recordLines('x.py', [[1, 'x']]);
    expect(store.get('a')).toBe(a);
    expect(store.get('b')).not.toBe(a);
    t = 1000; // everything idle
    expect(store.get('a')).not.toBe(a);
    expect(store.size).toBe(1);
  });

  it('the same id of two clients is two sessions', () => {
    const store = new MemorySessionStore();
    const mine = store.get('run', 'key:alice');
    mine.recordLines('secret.py', [[1, 'password = "hunter2"']]);
    const theirs = store.get('run', 'key:mallory');
    expect(theirs).not.toBe(mine);
    expect(theirs.hasSeen('secret.py', 1, 'password = "hunter2"')).toBe(false);
    expect(store.get('run', 'key:alice')).toBe(mine);
  });

  it('holds at most maxBytes whatever ids and lines arrive, counted from the sessions it holds', () => {
    const maxBytes = 200_000;
    const store = new MemorySessionStore({ maxBytes, maxSessionBytes: 50_000 });
    const random = rng(7);
    const ids: string[] = [];
    let peak = 0;
    for (let op = 0; op < 3000; op++) {
      // mostly new sessions (the attack), sometimes an earlier one again
      const id = ids.length === 0 || random() < 0.7 ? `s${ids.push(`s${ids.length}`) - 1}` : ids[Math.floor(random() * ids.length)]!;
      const memory = store.get(id, 'c');
      const n = 1 + Math.floor(random() * 200);
      const width = Math.floor(random() * 120);
      const lines: [number, string][] = Array.from({ length: n }, (_, i) => [i + 1, 'x'.repeat(width) + i]);
      memory.recordLines(`f${Math.floor(random() * 5)}.py`, lines);
      store.settle();
      let held = 0;
      for (const i of ids) {
        const m = store.peek(i, 'c');
        if (m) held += countedBytes(i, 'c', m);
      }
      expect(held).toBe(store.bytes);
      expect(held).toBeLessThanOrEqual(maxBytes);
      peak = Math.max(peak, held);
    }
    // the budget was used, not avoided: the store filled it and evicted
    expect(peak).toBeGreaterThan(maxBytes * 0.75);
    expect(store.size).toBeLessThan(ids.length);
  });

  it('a session is counted when the request that used it ends, even when other requests ended meanwhile', () => {
    const store = new MemorySessionStore();
    const memory = store.get('a', 'c');
    store.settle([]); // another request (say /health) ended while this one ran
    memory.recordLines('x.py', [[1, 'x'.repeat(1000)]]);
    store.settle([['a', 'c']]);
    expect(store.bytes).toBe(countedBytes('a', 'c', memory));
  });

  it('one session holds at most maxSessionBytes: its oldest files go first', () => {
    const store = new MemorySessionStore({ maxBytes: 1_000_000, maxSessionBytes: 20_000 });
    const memory = store.get('big');
    for (let f = 0; f < 20; f++) {
      memory.recordLines(
        `f${f}.py`,
        Array.from({ length: 50 }, (_, i): [number, string] => [i + 1, `line ${i} of file ${f}`.padEnd(60)]),
      );
    }
    store.settle();
    expect(countedBytes('big', '', memory)).toBeLessThanOrEqual(20_000);
    expect(memory.hasSeen('f19.py', 1, 'line 0 of file 19'.padEnd(60))).toBe(true);
    expect(memory.hasSeen('f0.py', 1, 'line 0 of file 0'.padEnd(60))).toBe(false);
  });
});
