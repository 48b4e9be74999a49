import type { KubeEvent } from './kube.js';
import { objectKey } from './objects.js';

export interface TimelineRow {
  key: string;
  /** ISO time of the event's last occurrence. */
  time: string;
  /** Normal or Warning. */
  type: string;
  /** "Pod default/web-1", "Node edge-2". */
  object: string;
  reason: string;
  message: string;
  count: number;
}

/** When an event last happened: lastTimestamp, else eventTime, else when it was created. */
export function eventTime(e: KubeEvent): string {
  return e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp ?? '';
}

/** The newest `limit` events, newest first. */
export function timeline(events: Iterable<KubeEvent>, limit: number): TimelineRow[] {
  return [...events]
    .sort((a, b) => eventTime(b).localeCompare(eventTime(a)) || (b.metadata.name ?? '').localeCompare(a.metadata.name ?? ''))
    .slice(0, limit)
    .map((e) => {
      const o = e.involvedObject ?? {};
      return {
        key: e.metadata.uid ?? objectKey(e),
        time: eventTime(e),
        type: e.type ?? 'Normal',
        object: `${o.kind ?? 'Object'} ${o.namespace ? `${o.namespace}/` : ''}${o.name ?? ''}`,
        reason: e.reason ?? '',
        message: e.message ?? '',
        count: e.count ?? 1,
      };
    });
}
