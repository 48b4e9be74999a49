import { Observable, Subject } from 'rxjs';
import { KedgeError } from '../../shared/errors.js';
import type { WatchEvent } from './store.js';

/**
 * Recent write events in revision order, bounded to `capacity`, plus the live feed.
 * Shared by every Store backend: they record each committed write here, in order.
 */
export class WatchHistory {
  private events: WatchEvent[] = [];
  private start = 0;
  private readonly live = new Subject<WatchEvent>();
  /** Every revision at or before this has been forgotten. */
  compacted: number;

  constructor(
    private readonly capacity: number,
    startRevision = 0,
  ) {
    this.compacted = startRevision;
  }

  record(event: WatchEvent): void {
    this.events.push(event);
    if (this.events.length - this.start > this.capacity) this.dropTo(this.start + 1);
    this.live.next(event);
  }

  compact(revision: number): void {
    let i = this.start;
    while (i < this.events.length && this.events[i]!.kv.modRevision <= revision) i++;
    this.dropTo(i);
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

  private *replayAfter(revision: number): Iterable<WatchEvent> {
    let lo = this.start;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) yield this.events[i]!;
  }

  private dropTo(index: number): void {
    if (index <= this.start) return;
    const dropped = this.events[index - 1];
    if (dropped) this.compacted = Math.max(this.compacted, dropped.kv.modRevision);
    this.start = index;
    if (this.start > 1024 && this.start * 2 > this.events.length) {
      this.events = this.events.slice(this.start);
      this.start = 0;
    }
  }
}
