import { Observable, Subject } from 'rxjs';
import { KedgeError } from '../../shared/errors.js';
import type { WatchEvent } from './store.js';

/**
 * Recent write events in revision order, at most `capacity` of them, plus the live feed.
 * Shared by every Store backend: they record each committed write here, in order.
 *
 * The events sit in a ring of `capacity` slots: a write past the window overwrites the
 * oldest event (no copying), so the history never holds more than its window.
 */
export class WatchHistory {
  private readonly ring: (WatchEvent | undefined)[];
  /** Slot of the oldest retained event. */
  private head = 0;
  private size = 0;
  private readonly live = new Subject<WatchEvent>();
  /** Every revision at or before this has been forgotten. */
  compacted: number;

  constructor(
    private readonly capacity: number,
    startRevision = 0,
  ) {
    this.ring = new Array<WatchEvent | undefined>(Math.max(0, capacity)).fill(undefined);
    this.compacted = startRevision;
  }

  record(event: WatchEvent): void {
    if (this.capacity <= 0) this.compacted = Math.max(this.compacted, event.kv.modRevision);
    else {
      if (this.size === this.capacity) this.dropOldest();
      this.ring[(this.head + this.size) % this.capacity] = event;
      this.size++;
    }
    this.live.next(event);
  }

  compact(revision: number): void {
    while (this.size > 0 && this.at(0).kv.modRevision <= revision) this.dropOldest();
    this.compacted = Math.max(this.compacted, revision);
  }

  watch(prefix: string, afterRevision: number, currentRevision: () => number): Observable<WatchEvent> {
    return new Observable<WatchEvent>((subscriber) => {
      if (afterRevision < this.compacted) {
        subscriber.error(new KedgeError('Expired', `too old resource version: ${afterRevision} (${this.compacted})`));
        return undefined;
      }
      const matches = (e: WatchEvent): boolean => e.kv.key.startsWith(prefix) && e.kv.modRevision > afterRevision;
      const sub = this.live.subscribe({ next: (e) => matches(e) && subscriber.next(e) });
      if (afterRevision < currentRevision()) for (const e of this.replayAfter(afterRevision)) if (matches(e)) subscriber.next(e);
      return () => sub.unsubscribe();
    });
  }

  close(): void {
    this.live.complete();
  }

  /** The retained event `index` places after the oldest. */
  private at(index: number): WatchEvent {
    return this.ring[(this.head + index) % this.capacity]!;
  }

  /** The retained events after `revision`, copied: a subscriber may write (and so record) while they replay. */
  private replayAfter(revision: number): WatchEvent[] {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at(mid).kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    const events: WatchEvent[] = [];
    for (let i = lo; i < this.size; i++) events.push(this.at(i));
    return events;
  }

  private dropOldest(): void {
    const oldest = this.at(0);
    this.compacted = Math.max(this.compacted, oldest.kv.modRevision);
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.size--;
  }
}
