/** The server's session store: bounded in count and idle time. */
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/server/sessions.js';

describe('SessionStore', () => {
  it('gives each id its own memory and keeps it while used', () => {
    let t = 0;
    const store = new SessionStore({ maxSessions: 2, idleMs: 100 }, () => t);
    const a = store.get('a');
    a.recordLines('x.py', [[1, 'x']]);
    expect(store.get('a')).toBe(a);
    expect(store.get('b')).not.toBe(a);
    store.get('a');
    store.get('c'); // b is the least recently used
    expect(store.size).toBe(2);
    expect(store.get('a')).toBe(a);
    t = 1000; // everything idle
    expect(store.get('a')).not.toBe(a);
    expect(store.size).toBe(1);
  });
});
