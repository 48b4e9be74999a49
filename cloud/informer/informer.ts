import { Observable, type Subscription } from 'rxjs';
import type { Cancel, Clock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { objectKey, type KubeObject } from '../../shared/types.js';
import type { ApiClient, ApiWatchEvent, ResourceRef } from '../client/client.js';

/**
 * List-then-watch with a local cache, as one stream of changes. Relists (after a 410
 * Expired, or after an error with a delay) are turned into the ADDED/MODIFIED/DELETED
 * events the consumer missed, so consumers never see a list. SYNCED follows every relist.
 * Objects are keyed by uid, so a pod recreated under the same name is a delete plus an add.
 */
export type CacheEvent<T> =
  | { type: 'ADDED'; object: T }
  | { type: 'MODIFIED'; object: T; old: T }
  | { type: 'DELETED'; object: T }
  | { type: 'SYNCED' };

export interface InformerOptions {
  clock: Clock;
  logger: Logger;
  /** Wait before relisting after an error other than Expired (default 1000 ms). */
  retryMs?: number;
}

export function cacheKey(object: KubeObject): string {
  return object.metadata.uid ?? objectKey(object.metadata);
}

/** The events that turn `cache` into `items` (a fresh list). Pure. */
export function diffRelist<T extends KubeObject>(cache: ReadonlyMap<string, T>, items: readonly T[]): CacheEvent<T>[] {
  const events: CacheEvent<T>[] = [];
  const listed = new Set<string>();
  for (const object of items) {
    const key = cacheKey(object);
    listed.add(key);
    const old = cache.get(key);
    if (!old) events.push({ type: 'ADDED', object });
    else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) events.push({ type: 'MODIFIED', object, old });
  }
  for (const [key, object] of cache) if (!listed.has(key)) events.push({ type: 'DELETED', object });
  return events;
}

export function informer<T extends KubeObject>(api: ApiClient, ref: ResourceRef, options: InformerOptions): Observable<CacheEvent<T>> {
  const { clock, logger, retryMs = 1000 } = options;
  return new Observable<CacheEvent<T>>((subscriber) => {
    const cache = new Map<string, T>();
    let stopped = false;
    let watching: Subscription | undefined;
    let cancelRetry: Cancel | undefined;
    let lastRv = '0';

    const emit = (event: CacheEvent<T>): void => {
      if (event.type === 'DELETED') cache.delete(cacheKey(event.object));
      else if (event.type !== 'SYNCED') cache.set(cacheKey(event.object), event.object);
      subscriber.next(event);
    };
    const onWatchEvent = (e: ApiWatchEvent<T>): void => {
      lastRv = e.object.metadata.resourceVersion ?? lastRv;
      if (e.type === 'BOOKMARK') return;
      const old = cache.get(cacheKey(e.object));
      if (e.type === 'DELETED') emit({ type: 'DELETED', object: e.object });
      else if (!old) emit({ type: 'ADDED', object: e.object });
      else if (old.metadata.resourceVersion !== e.object.metadata.resourceVersion) emit({ type: 'MODIFIED', object: e.object, old });
    };
    const retryLater = (err: unknown): void => {
      if (stopped) return;
      logger.warn('list/watch failed, retrying', { resource: ref.resource, error: String(err), retryMs });
      cancelRetry = clock.setTimer(retryMs, () => void relist());
    };
    const watchFrom = (rv: string): void => {
      watching?.unsubscribe();
      watching = api.watch<T>(ref, { resourceVersion: rv }).subscribe({
        next: onWatchEvent,
        error: (err: unknown) => (isKedgeError(err, 'Expired') ? void relist() : retryLater(err)),
        complete: () => !stopped && watchFrom(lastRv),
      });
    };
    const relist = async (): Promise<void> => {
      try {
        const list = await api.list<T>(ref);
        if (stopped) return;
        for (const event of diffRelist(cache, list.items)) emit(event);
        emit({ type: 'SYNCED' });
        lastRv = list.metadata.resourceVersion ?? '0';
        watchFrom(lastRv);
      } catch (err) {
        retryLater(err);
      }
    };

    void relist();
    return () => {
      stopped = true;
      cancelRetry?.();
      watching?.unsubscribe();
    };
  });
}
