/**
 * A watch on the server's event loop: when the main thread was held longer than a threshold (so
 * /health and every other answer waited), log how long and what happened meanwhile: the requests
 * that arrived or were answered, and the garbage collections, with their sizes. A timer that should
 * fire every `everyMs` finds the stall by how late it fires.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';

export interface StallWatchOptions {
  /** A stall is a timer this late or later (ms). */
  thresholdMs: number;
  /** How often the timer fires (ms). */
  everyMs: number;
}

export const DEFAULT_STALL_WATCH: StallWatchOptions = { thresholdMs: 50, everyMs: 10 };

/** What the main thread did, with when (performance.now()). */
interface Event {
  at: number;
  what: string;
}

const EVENTS_KEPT = 64;
const GC_KINDS: Record<number, string> = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weak callbacks' };

/** Watch `server`'s thread; returns a function that stops watching. */
export function watchStalls(server: Server, log: (line: string) => void, options: Partial<StallWatchOptions> = {}): () => void {
  const { thresholdMs, everyMs } = { ...DEFAULT_STALL_WATCH, ...options };
  const events: Event[] = [];
  const note = (what: string, at = performance.now()) => {
    events.push({ at, what });
    if (events.length > EVENTS_KEPT) events.shift();
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const label = `${req.method} ${req.url?.split('?')[0]} from ${req.socket.remoteAddress}`;
    const sentBefore = req.socket.bytesWritten;
    note(`${label} arrived (${req.headers['content-length'] ?? 0} bytes)`);
    res.once('finish', () => note(`${label} answered ${res.statusCode} (${req.socket.bytesWritten - sentBefore} bytes)`));
  };
  let accepted = 0;
  const onConnection = () => {
    accepted++;
  };
  server.on('request', onRequest);
  server.on('connection', onConnection);
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration >= 10) note(`gc ${GC_KINDS[(e as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? ''} ${e.duration.toFixed(0)} ms`, e.startTime);
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - everyMs;
    if (late >= thresholdMs) {
      const during = events.filter((e) => e.at >= last - everyMs && e.at <= now).map((e) => `${(e.at - last).toFixed(0)} ms: ${e.what}`);
      if (accepted > 0) during.push(`${accepted} connections accepted`);
      log(`skim serve: event loop held ${late.toFixed(0)} ms${during.length ? ` (${during.join('; ')})` : ''}`);
    }
    accepted = 0;
    last = now;
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    gc.disconnect();
    server.off('request', onRequest);
    server.off('connection', onConnection);
  };
}
