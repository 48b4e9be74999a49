import type { WatchEvent } from './store.js';

/** How long a window keeps events: kube's watch cache sizes (eventFreshDuration, lower and upper bound capacity). */
export interface WindowLimits {
  /** Events younger than this stay (kube: 75 s). */
  freshMs: number;
  /** At least this many recent events stay, however old (kube: 100). */
  minEvents: number;
  /** Never more than this many (kube: 100 × 1024). */
  maxEvents: number;
}

export const KUBE_WINDOW_LIMITS: WindowLimits = { freshMs: 75_000, minEvents: 100, maxEvents: 100 * 1024 };

/**
 * The recent events of one resource, oldest first, each with the time it was recorded.
 * An event falling out is released at once (its slot is cleared).
 */
export class EventWindow {
  private events: (WatchEvent | undefined)[] = [];
  private times: number[] = [];
  private head = 0;

  /** Every event of this window at or before this revision is gone. */
  constructor(public compacted: number) {}

  get size(): number {
    return this.events.length - this.head;
  }

  /** Adds an event recorded `now`, then drops what `limits` no longer keep. */
  push(event: WatchEvent, now: number, limits: WindowLimits): void {
    this.events.push(event);
    this.times.push(now);
    while (this.size > limits.maxEvents || (this.size > limits.minEvents && now - this.times[this.head]! > limits.freshMs)) this.dropOldest();
  }

  /** Explicit compaction: forgets the events at or before `revision`. */
  dropThrough(revision: number): void {
    while (this.size > 0 && this.oldest().kv.modRevision <= revision) this.dropOldest();
    this.compacted = Math.max(this.compacted, revision);
  }

  /** The retained events after `revision`, in order. */
  after(revision: number): WatchEvent[] {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo) as WatchEvent[];
  }

  private oldest(): WatchEvent {
    return this.events[this.head]!;
  }

  private dropOldest(): void {
    this.compacted = Math.max(this.compacted, this.oldest().kv.modRevision);
    this.events[this.head] = undefined;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
