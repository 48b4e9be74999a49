import type { Cancel, Clock } from '../../shared/clock.js';

export interface Backoff {
  minMs: number;
  maxMs: number;
}

/**
 * A work queue of keys (like client-go's workqueue): a key is queued at most once, however
 * often it is added; failed keys come back after a per-key backoff doubling from minMs to
 * maxMs until `forget`. Any number of workers may wait in `take`.
 */
export class KeyQueue {
  private readonly ready = new Set<string>();
  private readonly delayed = new Map<string, Cancel>();
  private readonly failures = new Map<string, number>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly backoff: Backoff,
  ) {}

  get length(): number {
    return this.ready.size + this.delayed.size;
  }

  add(key: string): void {
    if (this.closed) return;
    this.delayed.get(key)?.();
    this.delayed.delete(key);
    if (this.ready.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter(key);
    else this.ready.add(key);
  }

  /** Adds the key after its backoff; each call doubles the next wait. */
  addRateLimited(key: string): void {
    if (this.closed || this.ready.has(key) || this.delayed.has(key)) return;
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    const wait = Math.min(this.backoff.minMs * 2 ** failures, this.backoff.maxMs);
    this.delayed.set(key, this.clock.setTimer(wait, () => {
      this.delayed.delete(key);
      this.add(key);
    }));
  }

  /** The key succeeded (or is gone): its next failure starts from minMs again. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** The next key, or undefined once the queue is closed or the signal aborts. */
  take(signal?: AbortSignal): Promise<string | undefined> {
    if (this.closed || signal?.aborted) return Promise.resolve(undefined);
    const next = this.ready.values().next();
    if (!next.done) {
      this.ready.delete(next.value);
      return Promise.resolve(next.value);
    }
    return new Promise((resolve) => {
      const waiter = (key: string | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(key);
      };
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        waiter(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  close(): void {
    this.closed = true;
    for (const cancel of this.delayed.values()) cancel();
    this.delayed.clear();
    this.ready.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
