import { Observable, Subject } from 'rxjs';
import { realClock, type Clock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import { EventWindow, KUBE_WINDOW_LIMITS, type WindowLimits } from './event-window.js';
import type { WatchEvent } from './store.js';

/** How the embedded stores keep history for watches, as kube-apiserver's watch caches do. */
export interface HistoryOptions {
  /** At most this many events per window (default kube's 102,400); also lowers the minimum kept to it. */
  historySize?: number;
  /** Events younger than this are kept (default kube's 75 s). */
  historyFreshMs?: number;
  /** Where record times come from (default the wall clock). */
  clock?: Clock;
  /**
   * Key prefixes with a window of their own (the apiserver's resources): churn of one
   * resource never pushes another's history out. Keys under none share one window.
   */
  resourcePrefixes?: readonly string[];
}

/**
 * Recent write events in revision order, in one window per resource, plus the live feed.
 * Shared by the embedded Store backends: they record each committed write here, in order.
 * A window keeps every event of the last `historyFreshMs`, at least the last 100 and at
 * most `historySize`; a watch or list older than a window it reads gets Expired.
 */
export class WatchHistory {
  private readonly windows = new Map<string, EventWindow>();
  private readonly live = new Subject<WatchEvent>();
  private readonly limits: WindowLimits;
  private readonly clock: Clock;
  private readonly prefixes: ReadonlySet<string>;
  /** Explicit compaction (and where the store opened): no window holds anything at or before it. */
  private floor: number;

  constructor(options: HistoryOptions = {}, startRevision = 0) {
    const max = options.historySize ?? KUBE_WINDOW_LIMITS.maxEvents;
    this.limits = { freshMs: options.historyFreshMs ?? KUBE_WINDOW_LIMITS.freshMs, maxEvents: max, minEvents: Math.min(KUBE_WINDOW_LIMITS.minEvents, max) };
    this.clock = options.clock ?? realClock;
    this.prefixes = new Set(options.resourcePrefixes ?? []);
    this.floor = startRevision;
  }

  /** The newest revision some window forgot: a watch of every key may start after it. */
  get compacted(): number {
    let bound = this.floor;
    for (const w of this.windows.values()) bound = Math.max(bound, w.compacted);
    return bound;
  }

  record(event: WatchEvent): void {
    this.windowFor(event.kv.key).push(event, this.clock.now(), this.limits);
    this.live.next(event);
  }

  compact(revision: number): void {
    this.floor = Math.max(this.floor, revision);
    for (const w of this.windows.values()) w.dropThrough(revision);
  }

  /** The retained events under `prefix` after `revision`, in order; Expired if a window they would be in forgot some. */
  eventsAfter(prefix: string, revision: number): WatchEvent[] {
    const windows = this.windowsUnder(prefix);
    const bound = this.oldestAfter(prefix, windows);
    if (revision < bound) throw new KedgeError('Expired', `too old resource version: ${revision} (${bound})`);
    const events = windows.flatMap((w) => w.after(revision)).filter((e) => e.kv.key.startsWith(prefix));
    return windows.length > 1 ? events.sort((a, b) => a.kv.modRevision - b.kv.modRevision) : events;
  }

  /** The oldest revision a watch of `prefix` may start after: before it, some event is forgotten. */
  oldestAfter(prefix: string, windows = this.windowsUnder(prefix)): number {
    return Math.max(this.floor, ...windows.map((w) => w.compacted));
  }

  watch(prefix: string, afterRevision: number, currentRevision: () => number): Observable<WatchEvent> {
    return new Observable<WatchEvent>((subscriber) => {
      let replay: WatchEvent[];
      try {
        replay = afterRevision < currentRevision() ? this.eventsAfter(prefix, afterRevision) : [];
      } catch (err) {
        subscriber.error(err);
        return undefined;
      }
      const matches = (e: WatchEvent): boolean => e.kv.key.startsWith(prefix) && e.kv.modRevision > afterRevision;
      const sub = this.live.subscribe({ next: (e) => matches(e) && subscriber.next(e), error: (err: unknown) => subscriber.error(err) });
      for (const e of replay) subscriber.next(e);
      return () => sub.unsubscribe();
    });
  }

  close(): void {
    this.live.complete();
  }

  /** Ends every watch with `err` (their history is no longer whole); later events go nowhere. */
  end(err: Error): void {
    this.live.error(err);
  }

  /** The window of a key: its longest resource prefix, or the shared one (''). */
  private windowOf(key: string): string {
    let found = '';
    for (let i = key.indexOf('/', 1); i >= 0; i = key.indexOf('/', i + 1)) {
      const candidate = key.slice(0, i + 1);
      if (this.prefixes.has(candidate)) found = candidate;
    }
    return found;
  }

  private windowFor(key: string): EventWindow {
    const name = this.windowOf(key);
    let w = this.windows.get(name);
    if (!w) this.windows.set(name, (w = new EventWindow(this.floor)));
    return w;
  }

  /** The windows that may hold keys under `prefix`. */
  private windowsUnder(prefix: string): EventWindow[] {
    const own = this.windowOf(prefix);
    if (own !== '') return [this.windows.get(own)].filter((w) => w !== undefined);
    return [...this.windows].filter(([name]) => name === '' || name.startsWith(prefix)).map(([, w]) => w);
  }
}
