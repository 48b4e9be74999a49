import { LruMap } from './lru-map.js';

/** client-go's defaults: a burst of 25 events per object, then one more every 300 s. */
export const SPAM_BURST = 25;
export const SPAM_REFILL_MS = 300_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * client-go's EventSourceObjectSpamFilter: a token bucket per involved object (the source is
 * always this kubelet). An event that finds the bucket empty is dropped, repeats included.
 */
export class SpamFilter {
  private readonly buckets = new LruMap<string, Bucket>(4096);

  constructor(
    private readonly burst = SPAM_BURST,
    private readonly refillMs = SPAM_REFILL_MS,
  ) {}

  /** Whether an event about the object with this key may go out at `now` (it takes a token). */
  allow(objectKey: string, now: number): boolean {
    const last = this.buckets.get(objectKey) ?? { tokens: this.burst, at: now };
    const tokens = Math.min(this.burst, last.tokens + Math.max(0, now - last.at) / this.refillMs);
    if (tokens < 1) {
      this.buckets.set(objectKey, { tokens, at: now });
      return false;
    }
    this.buckets.set(objectKey, { tokens: tokens - 1, at: now });
    return true;
  }
}
