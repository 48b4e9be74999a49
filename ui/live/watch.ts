import type { Timers } from '../clock.js';
import type { KubeObject, Status, WatchEvent } from '../model/kube.js';
import { ApiError, apiError, call, CloudUnreachable, reaching, send } from './api.js';
import { LineSplitter } from './ndjson.js';

/** The least time between two starts of a watch: a stream that keeps ending never becomes a poll loop. */
export const MIN_RESTART_MS = 1_000;
/** How long to wait after a failure before listing again. */
export const RETRY_MS = 2_000;

export interface ListWatchOptions {
  /** A collection path, e.g. /api/v1/pods. */
  path: string;
  onList(items: KubeObject[]): void;
  onEvent(event: WatchEvent): void;
  /** The watch is answered: from here on the page follows changes. */
  onLive(): void;
  onProblem(problem: string, unreachable: boolean): void;
  timers: Timers;
  signal: AbortSignal;
}

/** Expired (410): the resourceVersion is too old to watch from, so list again. */
class Relist extends Error {}

/**
 * Lists a collection, then watches it from the list's resourceVersion (a streaming fetch of
 * newline-delimited JSON), watching again from the last version seen when the stream ends and
 * listing again after a failure or a 410. Runs until `signal` aborts.
 */
export async function listWatch(o: ListWatchOptions): Promise<void> {
  let version: string | undefined;
  while (!o.signal.aborted) {
    const started = o.timers.now();
    try {
      if (version === undefined) {
        const list = await call<{ metadata: { resourceVersion?: string }; items: KubeObject[] }>('GET', o.path, { signal: o.signal });
        o.onList(list.items);
        version = list.metadata.resourceVersion ?? '0';
      }
      version = await watchFrom(o, version);
      await o.timers.sleep(Math.max(0, started + MIN_RESTART_MS - o.timers.now()), o.signal);
    } catch (err) {
      if (o.signal.aborted) return;
      version = undefined;
      if (err instanceof ApiError && err.status === 401) throw err;
      o.onProblem(err instanceof Relist ? 'history expired, listing again' : (err as Error).message, err instanceof CloudUnreachable);
      await o.timers.sleep(err instanceof Relist ? 0 : RETRY_MS, o.signal);
    }
  }
}

/** Follows one watch stream to its end; resolves with the last resourceVersion seen. */
async function watchFrom(o: ListWatchOptions, from: string): Promise<string> {
  const query = new URLSearchParams({ watch: 'true', resourceVersion: from, allowWatchBookmarks: 'true' });
  const res = await send('GET', `${o.path}?${query}`, { signal: o.signal });
  if (!res.ok || !res.body) throw await apiError(res);
  o.onLive();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const lines = new LineSplitter();
  let version = from;
  try {
    for (;;) {
      const { done, value } = await reaching(() => reader.read(), o.signal);
      if (done) return version;
      for (const line of lines.push(value)) {
        const event = JSON.parse(line) as WatchEvent;
        if (event.type === 'ERROR') {
          const status = event.object as Status;
          throw status.code === 410 ? new Relist() : new Error(status.message ?? 'the watch failed');
        }
        version = event.object.metadata.resourceVersion ?? version;
        if (event.type !== 'BOOKMARK') o.onEvent(event);
      }
    }
  } finally {
    // Ends the stream when this one gives up on it (an ERROR event, bad JSON): the cloud stops sending.
    void reader.cancel().catch(() => {});
  }
}
