import type { KubeObject } from '../../../shared/types.js';

/** What expiry reads of an Event (core/v1, or events.k8s.io's eventTime and series). */
export interface EventTimes extends KubeObject {
  lastTimestamp?: string;
  eventTime?: string;
  series?: { lastObservedTime?: string };
}

/** One Event to delete, with the version it was seen at (a write since keeps it). */
export interface ExpiredEvent {
  namespace: string;
  name: string;
  resourceVersion?: string;
}

/** When the Event was last written: the newest of its lastTimestamp, eventTime, series and creation; 0 when none parses. Pure. */
export function lastWritten(event: EventTimes): number {
  const times = [event.lastTimestamp, event.eventTime, event.series?.lastObservedTime, event.metadata.creationTimestamp].map((t) => (t ? Date.parse(t) : NaN));
  return Math.max(0, ...times.filter((t) => !Number.isNaN(t)));
}

/**
 * kube-apiserver's --event-ttl: the Events last written `ttlMs` or longer before `now`, the
 * oldest first, at most `max` of them (the work of one pass). Pure.
 */
export function planEventExpiry(events: readonly EventTimes[], now: number, ttlMs: number, max: number): ExpiredEvent[] {
  return events
    .map((event) => ({ event, at: lastWritten(event) }))
    .filter(({ at }) => now - at >= ttlMs)
    .sort((a, b) => a.at - b.at)
    .slice(0, max)
    .map(({ event: { metadata } }) => ({ namespace: metadata.namespace ?? 'default', name: metadata.name ?? '', resourceVersion: metadata.resourceVersion }));
}
