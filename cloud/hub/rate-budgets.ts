import type { Clock } from '../../shared/clock.js';

/** A token bucket: `burst` deep, refilled at `perSecond`. */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.refilledAt = now;
  }

  /** Takes a token; false when there is none. */
  take(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }

  /** How long until `count` tokens are there. */
  msUntil(count: number, now: number): number {
    this.refill(now);
    return Math.max(0, Math.ceil(((count - this.tokens) * 1000) / this.perSecond));
  }

  /** Full: a fresh bucket would be the same. */
  isFull(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.burst;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
    this.refilledAt = now;
  }
}

/** A bucket shared by the connections of one identity; `release` when a connection ends. */
export interface Budget {
  readonly bucket: TokenBucket;
  release(): void;
}

/**
 * Rate budgets per identity (a node's credential), not per connection: four connections
 * share one bucket, and a reconnect does not refill it. A bucket is forgotten once no
 * connection uses it and it has filled up again, so the table holds the identities
 * connected, or throttled in the last few seconds.
 */
export class RateBudgets {
  private readonly byIdentity = new Map<string, { bucket: TokenBucket; users: number }>();
  /** The identities no connection uses: only these may be forgotten, so a sweep never walks the connected ones. */
  private readonly unused = new Set<string>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {}

  acquire(identity: string): Budget {
    this.forgetIdle();
    let entry = this.byIdentity.get(identity);
    if (!entry) this.byIdentity.set(identity, (entry = { bucket: new TokenBucket(this.perSecond, this.burst, this.clock.now()), users: 0 }));
    entry.users++;
    this.unused.delete(identity);
    const used = entry;
    let released = false;
    return {
      bucket: entry.bucket,
      release: () => {
        if (released) return;
        released = true;
        if (--used.users === 0 && this.byIdentity.get(identity) === used) this.unused.add(identity);
        this.forgetIdle();
      },
    };
  }

  /** A bucket for a connection nobody vouched for yet. */
  anonymous(): TokenBucket {
    return new TokenBucket(this.perSecond, this.burst, this.clock.now());
  }

  get size(): number {
    return this.byIdentity.size;
  }

  private forgetIdle(): void {
    const now = this.clock.now();
    for (const identity of this.unused) {
      if (!this.byIdentity.get(identity)!.bucket.isFull(now)) continue;
      this.byIdentity.delete(identity);
      this.unused.delete(identity);
    }
  }
}
