import type { Etcd3, IEvent, IWatchResponse, Watcher } from 'etcd3';
import { Observable, type Subscriber } from 'rxjs';
import { KedgeError } from '../../../shared/errors.js';
import type { WatchEvent } from '../store.js';
import { etcdError, toKeyValue } from './etcd-codec.js';
import type { EtcdKeys } from './etcd-keys.js';

export interface WatchRequest {
  client: Etcd3;
  /** etcd's key prefix of the watched keys. */
  key: Buffer;
  /** How events' etcd keys become Store keys. */
  keys: EtcdKeys;
  afterRevision: number;
  /** Every response's header revision, to keep the store's revision current. */
  onRevision: (revision: number) => void;
  /** Without etcd's previous values (the store's own follower fills them from its cache); default with. */
  withoutPrevKv?: boolean;
}

/** A watch response's events as the Store's. */
export function toWatchEvents(res: IWatchResponse, keys: EtcdKeys): WatchEvent[] {
  return res.events.map((e) => toWatchEvent(e, keys));
}

function toWatchEvent(e: IEvent, keys: EtcdKeys): WatchEvent {
  const prevKv = e.prev_kv?.key?.length ? toKeyValue(e.prev_kv, keys) : undefined;
  if (e.type === 'Put') return { type: 'put', kv: toKeyValue(e.kv, keys), prevKv };
  const key = keys.fromEtcd(e.kv.key);
  const kv = { key, value: prevKv?.value ?? null, createRevision: prevKv?.createRevision ?? 0, modRevision: Number(e.kv.mod_revision) };
  return { type: 'delete', kv, prevKv };
}

const expired = (afterRevision: number, why: string): KedgeError => new KedgeError('Expired', `too old resource version: ${afterRevision} (etcd: ${why})`);

/** The watcher; once etcd cancelled it, it must not be cancelled again (etcd3 would throw on etcd's second answer). */
function follow(request: WatchRequest, subscriber: Subscriber<WatchEvent>, onEnd: () => void): Watcher {
  const builder = request.client.watch().prefix(request.key);
  const watcher = (request.withoutPrevKv ? builder : builder.withPreviousKV()).startRevision(String(request.afterRevision + 1)).watcher();
  watcher.on('data', (res: IWatchResponse) => {
    request.onRevision(Number(res.header.revision));
    for (const event of toWatchEvents(res, request.keys)) subscriber.next(event);
  });
  watcher.on('error', (err: Error) => {
    onEnd();
    // etcd3 reports a cancel without etcd's reason: compaction, in practice.
    subscriber.error(/cancel/i.test(err.message) ? expired(request.afterRevision, `${err.message.trim()} (compacted)`) : etcdError(err));
  });
  return watcher;
}

/**
 * One etcd watch with prevKv from `afterRevision + 1`. etcd3 reconnects it on its own,
 * resuming after the last revision it delivered; a cancel ends it with Expired, so that the
 * caller lists again.
 */
export function etcdWatch(request: WatchRequest): Observable<WatchEvent> {
  return new Observable<WatchEvent>((subscriber) => {
    let watcher: Watcher | undefined = follow(request, subscriber, () => (watcher = undefined));
    return () => {
      void watcher?.cancel().catch(() => {});
      watcher = undefined;
    };
  });
}

/** A watch that fails at once: it asks for history this store compacted. */
export function expiredFeed(afterRevision: number, compacted: number): Observable<WatchEvent> {
  return new Observable<WatchEvent>((subscriber) => subscriber.error(new KedgeError('Expired', `too old resource version: ${afterRevision} (${compacted})`)));
}
