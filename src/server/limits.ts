/**
 * Admission control for the HTTP server: a small counting semaphore with a bounded wait queue
 * (so a burst cannot pile up unbounded work on a 2-core box) and a deadline helper for the
 * per-request time limit.
 */

/** Thrown when both the running slots and the wait queue are full. */
export class OverloadedError extends Error {
  constructor() {
    super('server busy: too many concurrent prune requests, retry shortly');
    this.name = 'OverloadedError';
  }
}

/** Thrown when a request ran past its time limit (including time spent waiting for a slot). */
export class DeadlineError extends Error {
  constructor(ms: number) {
    super(`time limit of ${ms} ms exceeded`);
    this.name = 'DeadlineError';
  }
}

/** Thrown when the client that asked went away: its work is dropped. */
export class ClientGoneError extends Error {
  constructor() {
    super('client closed the connection');
    this.name = 'ClientGoneError';
  }
}

interface Waiter {
  client: string;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Slots for prune calls, shared fairly between clients: a freed slot goes to the waiting client
 * that runs the fewest calls (the longest waiting among those), so a client sending slow requests
 * keeps at most its share of the workers once others wait; and one client may fill at most half of
 * the wait queue.
 */
export class Semaphore {
  private running = 0;
  private readonly waiters: Waiter[] = [];
  /** Calls running per client. */
  private readonly runningOf = new Map<string, number>();

  constructor(
    readonly maxRunning: number,
    readonly maxWaiting: number,
  ) {
    if (!(maxRunning >= 1)) throw new Error('maxRunning must be >= 1');
  }

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Resolves with a release function once a slot is free for `client`; rejects at once when the
   * queue (or the client's half of it) is full.
   */
  acquire(signal?: AbortSignal, client = ''): Promise<() => void> {
    if (this.running < this.maxRunning) {
      this.running++;
      return Promise.resolve(this.releaser(client));
    }
    const share = Math.max(1, Math.ceil(this.maxWaiting / 2));
    if (this.waiters.length >= this.maxWaiting || this.waiters.filter((w) => w.client === client).length >= share) {
      return Promise.reject(new OverloadedError());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        client,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser(client));
        },
        reject,
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** The waiter to serve next: of the clients running the fewest calls, the one waiting longest. */
  private nextWaiter(): Waiter | undefined {
    let best = -1;
    let fewest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.waiters.length; i++) {
      const n = this.runningOf.get(this.waiters[i]!.client) ?? 0;
      if (n < fewest) [best, fewest] = [i, n];
    }
    return best < 0 ? undefined : this.waiters.splice(best, 1)[0];
  }

  private releaser(client: string): () => void {
    this.runningOf.set(client, (this.runningOf.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.runningOf.get(client)! - 1;
      if (n > 0) this.runningOf.set(client, n);
      else this.runningOf.delete(client);
      const next = this.nextWaiter();
      // Hand the slot straight to the next waiter: `running` stays the same.
      if (next) next.resolve();
      else this.running--;
    };
  }
}

/**
 * Run `work` under a deadline: an AbortSignal fires at the deadline, or when `clientGone` fires (the
 * client closed its connection), so the work (and the wait for a slot) can be abandoned; the
 * returned promise rejects with DeadlineError or ClientGoneError then.
 */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>, clientGone?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onGone: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    const stop = (err: Error) => {
      controller.abort(err);
      reject(err);
    };
    timer = setTimeout(() => stop(new DeadlineError(ms)), ms);
    onGone = () => stop(new ClientGoneError());
    if (clientGone?.aborted) onGone();
    else clientGone?.addEventListener('abort', onGone, { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    if (onGone) clientGone?.removeEventListener('abort', onGone);
  }
}
