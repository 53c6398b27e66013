/**
 * A token-bucket rate limiter with per-client buckets and an HTTP middleware around it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RateLimitOptions {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: the largest burst a client may send. */
  burst: number;
  /** Buckets idle for this long are dropped (ms). */
  idleMs?: number;
  /** Which client a request belongs to (default: remote address). */
  keyOf?: (req: IncomingMessage) => string;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly idleMs: number;

  constructor(
    private readonly opts: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    if (opts.ratePerSecond <= 0) throw new RangeError('ratePerSecond must be positive');
    if (opts.burst < 1) throw new RangeError('burst must be at least 1');
    this.idleMs = opts.idleMs ?? 10 * 60_000;
  }

  /** Refill a bucket for the time elapsed since it was last touched. */
  private refill(bucket: Bucket, at: number): void {
    const elapsed = Math.max(0, at - bucket.updatedAt) / 1000;
    bucket.tokens = Math.min(this.opts.burst, bucket.tokens + elapsed * this.opts.ratePerSecond);
    bucket.updatedAt = at;
  }

  /** Take `cost` tokens for `key`; returns how long to wait (ms) when there are not enough. */
  take(key: string, cost = 1): { allowed: boolean; retryAfterMs: number; remaining: number } {
    const at = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.opts.burst, updatedAt: at };
      this.buckets.set(key, bucket);
    }
    this.refill(bucket, at);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { allowed: true, retryAfterMs: 0, remaining: Math.floor(bucket.tokens) };
    }
    const missing = cost - bucket.tokens;
    const retryAfterMs = Math.ceil((missing / this.opts.ratePerSecond) * 1000);
    return { allowed: false, retryAfterMs, remaining: 0 };
  }

  /** Forget buckets nobody used for a while, so memory stays bounded. */
  sweep(): number {
    const at = this.now();
    let dropped = 0;
    for (const [key, bucket] of this.buckets) {
      if (at - bucket.updatedAt > this.idleMs) {
        this.buckets.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  get size(): number {
    return this.buckets.size;
  }
}

type Next = (err?: unknown) => void;

/** Connect-style middleware: 429 with Retry-After when a client is over its rate. */
export function rateLimit(opts: RateLimitOptions) {
  const limiter = new TokenBucketLimiter(opts);
  const keyOf = opts.keyOf ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown');
  const timer = setInterval(() => limiter.sweep(), 60_000);
  timer.unref();

  return function rateLimitMiddleware(req: IncomingMessage, res: ServerResponse, next: Next): void {
    let key: string;
    try {
      key = keyOf(req);
    } catch (err) {
      next(err);
      return;
    }
    const { allowed, retryAfterMs, remaining } = limiter.take(key);
    res.setHeader('X-RateLimit-Limit', String(opts.burst));
    res.setHeader('X-RateLimit-Remaining', String(remaining));
    if (allowed) {
      next();
      return;
    }
    res.statusCode = 429;
    res.setHeader('Retry-After', String(Math.ceil(retryAfterMs / 1000)));
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ error: 'too many requests', retryAfterMs }));
  };
}

export function formatLimit(opts: RateLimitOptions): string {
  return `${opts.ratePerSecond}/s (burst ${opts.burst})`;
}
