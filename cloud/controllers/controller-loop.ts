import type { Observable, Subscription } from 'rxjs';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { CacheEvent } from '../informer/informer.js';
import { KeyQueue, type Backoff } from '../informer/key-queue.js';
import { runWorkers } from './workers.js';

/** One informer feeding a controller: its events and what the controller does with each. */
export interface Source {
  events: Observable<CacheEvent<unknown>>;
  handle(event: CacheEvent<unknown>): void;
}

export function source<T>(events: Observable<CacheEvent<T>>, handle: (event: CacheEvent<T>) => void): Source {
  return { events, handle: handle as (event: CacheEvent<unknown>) => void };
}

export interface SubscribedSources {
  /** Resolves once every source has delivered its first SYNCED (or once unsubscribed). */
  synced: Promise<void>;
  unsubscribe(): void;
}

/** Subscribes every source: each event goes to its handler first, then counts towards `synced`. */
export function subscribeSources(sources: readonly Source[]): SubscribedSources {
  let pending = sources.length;
  let release!: () => void;
  const synced = new Promise<void>((resolve) => (release = resolve));
  const subscriptions: Subscription[] = sources.map(({ events, handle }) => {
    let first = true;
    return events.subscribe((event) => {
      handle(event);
      if (event.type === 'SYNCED' && first) {
        first = false;
        if (--pending === 0) release();
      }
    });
  });
  if (pending === 0) release();
  return {
    synced,
    unsubscribe() {
      for (const s of subscriptions) s.unsubscribe();
      release();
    },
  };
}

export interface LoopOptions {
  clock: Clock;
  logger: Logger;
  reconcile(key: string): Promise<void>;
  concurrency?: number;
  backoff?: Backoff;
}

/**
 * The plumbing every workload controller shares: informers feed handlers that queue keys;
 * workers start only once every informer holds its first list (so no pass plans from a
 * half-filled cache); `addAfter` wakes a key later on the clock.
 */
export class ControllerLoop {
  readonly queue: KeyQueue;
  private readonly timers = new Map<string, { due: number; cancel: Cancel }>();
  private subscribed: SubscribedSources | undefined;
  private workers: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: LoopOptions) {
    this.queue = new KeyQueue(options.clock, options.backoff ?? { minMs: 10, maxMs: 60_000 });
  }

  /** Subscribes the sources and resolves once all have synced and the workers run. */
  async start(sources: readonly Source[]): Promise<void> {
    this.subscribed = subscribeSources(sources);
    await this.subscribed.synced;
    if (this.closing) return;
    const { reconcile, logger, concurrency } = this.options;
    this.workers = runWorkers({ queue: this.queue, reconcile, logger, concurrency });
  }

  /** Queues `key` after `ms`; an earlier wake-up already set wins. */
  addAfter(key: string, ms: number): void {
    const due = this.options.clock.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.due <= due) return;
    existing?.cancel();
    const cancel = this.options.clock.setTimer(ms, () => {
      this.timers.delete(key);
      this.queue.add(key);
    });
    this.timers.set(key, { due, cancel });
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.subscribed?.unsubscribe();
      for (const t of this.timers.values()) t.cancel();
      this.timers.clear();
      this.queue.close();
      await this.workers;
    })());
  }
}
