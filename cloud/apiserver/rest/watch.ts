import { Observable, type Subscription } from 'rxjs';
import type { Clock } from '../../../shared/clock.js';
import { toKubeStatus } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import type { Store, WatchEvent } from '../../store/store.js';
import { apiVersionOf, storePrefix, type ResourceDef } from '../kinds/registry.js';
import type { WireWatchEvent } from '../request.js';
import { toObject } from './storage.js';
import { tooLargeResourceVersion } from '../../store/list-at.js';

/** How often a watch that allows bookmarks gets one (kube-apiserver: about once a minute). */
export const BOOKMARK_INTERVAL_MS = 60_000;

export interface WatchSpec {
  store: Store;
  clock: Clock;
  def: ResourceDef;
  namespace: string | undefined;
  /** Selector over the whole object (labels and fields). */
  matches: (obj: KubeObject) => boolean;
  /** Omitted or "0": synthetic ADDED events for what exists, then changes. */
  resourceVersion?: string;
  /**
   * sendInitialEvents (with resourceVersionMatch=NotOlderThan): true, the state first (at least
   * at resourceVersion) and, with bookmarks, a BOOKMARK marking its end; false, only changes.
   */
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
  /** Closes the stream after this many seconds (the client then watches again). */
  timeoutSeconds?: number;
}

/**
 * A Kubernetes watch over the store: ADDED/MODIFIED/DELETED (as seen through the selector),
 * BOOKMARKs, and a final ERROR event carrying a Status (e.g. 410 Expired) before completing.
 */
export function watchObjects(spec: WatchSpec): Observable<WireWatchEvent> {
  return new Observable<WireWatchEvent>((subscriber) => {
    let closed = false;
    let inner: Subscription | undefined;
    let lastRevision = 0;
    const cancels: (() => void)[] = [];
    const fail = (err: unknown): void => {
      subscriber.next({ type: 'ERROR', object: toKubeStatus(err) });
      subscriber.complete();
    };
    const start = async (): Promise<void> => {
      const rv = Number(spec.resourceVersion ?? '0');
      let after = rv;
      if (spec.sendInitialEvents ?? rv === 0) {
        const list = await spec.store.list(storePrefix(spec.def, spec.namespace));
        if (closed) return;
        if (rv > list.revision) throw tooLargeResourceVersion(rv, list.revision);
        for (const kv of list.items) {
          const obj = toObject(spec.def, kv);
          if (spec.matches(obj)) subscriber.next({ type: 'ADDED', object: obj, initial: true });
        }
        after = list.revision;
        if (spec.sendInitialEvents && spec.allowBookmarks) subscriber.next(bookmark(spec.def, after, INITIAL_EVENTS_END));
      } else if (rv === 0) after = spec.store.revision;
      lastRevision = after;
      const replayedUpTo = spec.store.revision; // what the store replays from its history; later events are news
      inner = spec.store.watch(storePrefix(spec.def, spec.namespace), after).subscribe({
        next: (e) => {
          lastRevision = e.kv.modRevision;
          const out = translate(spec, e);
          if (out) subscriber.next(e.kv.modRevision <= replayedUpTo ? { ...out, initial: true } : out);
        },
        error: fail,
        complete: () => subscriber.complete(),
      });
    };
    start().catch(fail);
    if (spec.allowBookmarks) {
      cancels.push(spec.clock.setRepeating(BOOKMARK_INTERVAL_MS, () => subscriber.next(bookmark(spec.def, lastRevision))));
    }
    if (spec.timeoutSeconds !== undefined && spec.timeoutSeconds > 0) {
      cancels.push(spec.clock.setTimer(spec.timeoutSeconds * 1000, () => subscriber.complete()));
    }
    return () => {
      closed = true;
      inner?.unsubscribe();
      for (const cancel of cancels) cancel();
    };
  });
}

/** A store event as the watcher sees it through its selector (entering → ADDED, leaving → DELETED). */
function translate(spec: WatchSpec, e: WatchEvent): WireWatchEvent | undefined {
  const obj = toObject(spec.def, e.kv);
  if (e.type === 'delete') {
    return e.prevKv && spec.matches(obj) ? { type: 'DELETED', object: obj } : undefined;
  }
  const now = spec.matches(obj);
  const before = e.prevKv ? spec.matches(toObject(spec.def, e.prevKv)) : false;
  if (now && before) return { type: 'MODIFIED', object: obj };
  if (now) return { type: 'ADDED', object: obj };
  if (before) return { type: 'DELETED', object: obj };
  return undefined;
}

/** The annotation of the bookmark that ends a watch's initial events (metav1.InitialEventsAnnotationKey). */
export const INITIAL_EVENTS_END = { 'k8s.io/initial-events-end': 'true' };

function bookmark(def: ResourceDef, revision: number, annotations?: Record<string, string>): WireWatchEvent {
  const metadata = annotations ? { resourceVersion: String(revision), annotations } : { resourceVersion: String(revision) };
  return { type: 'BOOKMARK', object: { kind: def.kind, apiVersion: apiVersionOf(def), metadata } };
}
