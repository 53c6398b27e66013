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

export class Semaphore {
  private running = 0;
  private readonly waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];

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

  /** Resolves with a release function once a slot is free; rejects at once when the queue is full. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.running < this.maxRunning) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiters.length >= this.maxWaiting) return Promise.reject(new OverloadedError());
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser());
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

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // Hand the slot straight to the next waiter: `running` stays the same.
      if (next) next.resolve();
      else this.running--;
    };
  }
}

/**
 * Run `work` under a deadline: an AbortSignal fires at the deadline so the work (and the wait for a
 * slot) can be abandoned; the returned promise rejects with DeadlineError then.
 */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new DeadlineError(ms);
      controller.abort(err);
      reject(err);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
