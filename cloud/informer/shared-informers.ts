import { Observable, Subject, type Subscription } from 'rxjs';
import type { KubeObject } from '../../shared/types.js';
import type { ApiClient, ResourceRef } from '../client/client.js';
import { cacheKey, informer, type CacheEvent, type InformerOptions } from './informer.js';

/** Where control loops get their informers: one list-and-watch per resource, however many loops follow it. */
export interface Informers {
  of<T extends KubeObject>(ref: ResourceRef): Observable<CacheEvent<T>>;
}

/**
 * client-go's SharedInformerFactory: the scheduler, the controllers and the hub share one
 * watch per resource, so a pod write is fanned out once, not once per loop. A late
 * subscriber first gets the cache as ADDED events (and SYNCED once the first list is in).
 * The watch runs while anyone subscribes; the last one to leave stops it.
 */
export class SharedInformers implements Informers {
  private readonly shared = new Map<string, Observable<CacheEvent<KubeObject>>>();

  constructor(
    private readonly api: ApiClient,
    private readonly options: InformerOptions,
  ) {}

  of<T extends KubeObject>(ref: ResourceRef): Observable<CacheEvent<T>> {
    const key = `${ref.group ?? ''}/${ref.resource}/${ref.namespace ?? ''}`;
    let stream = this.shared.get(key);
    if (!stream) this.shared.set(key, (stream = share(informer<KubeObject>(this.api, ref, this.options))));
    return stream as Observable<CacheEvent<T>>;
  }
}

/** A cache-replaying, reference-counted share of one informer. */
export function share<T extends KubeObject>(source: Observable<CacheEvent<T>>): Observable<CacheEvent<T>> {
  const cache = new Map<string, T>();
  const live = new Subject<CacheEvent<T>>();
  let synced = false;
  let upstream: Subscription | undefined;
  let subscribers = 0;
  const onEvent = (event: CacheEvent<T>): void => {
    if (event.type === 'SYNCED') synced = true;
    else if (event.type === 'DELETED') cache.delete(cacheKey(event.object));
    else cache.set(cacheKey(event.object), event.object);
    live.next(event);
  };
  return new Observable<CacheEvent<T>>((subscriber) => {
    for (const object of cache.values()) subscriber.next({ type: 'ADDED', object });
    if (synced) subscriber.next({ type: 'SYNCED' });
    const own = live.subscribe(subscriber);
    if (subscribers++ === 0) upstream = source.subscribe(onEvent);
    return () => {
      own.unsubscribe();
      if (--subscribers > 0) return;
      upstream?.unsubscribe();
      upstream = undefined;
      cache.clear();
      synced = false;
    };
  });
}
