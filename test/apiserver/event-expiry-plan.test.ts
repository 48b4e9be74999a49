import { describe, expect, it } from 'vitest';
import { lastWritten, planEventExpiry, type EventTimes } from '../../cloud/apiserver/expiry/event-expiry-plan.js';

const at = (s: number): string => new Date(s * 1000).toISOString();
const event = (name: string, times: Partial<EventTimes> & { created?: number }): EventTimes => ({
  metadata: { name, namespace: 'default', resourceVersion: `${name}-rv`, ...(times.created === undefined ? {} : { creationTimestamp: at(times.created) }) },
  ...times,
});

describe('event expiry: kube-apiserver --event-ttl, as a plan', () => {
  it('an Event was last written at the newest of lastTimestamp, eventTime, series and creation', () => {
    expect(lastWritten(event('a', { created: 10, lastTimestamp: at(50) }))).toBe(50_000);
    expect(lastWritten(event('b', { created: 90, lastTimestamp: at(50) }))).toBe(90_000); // sent late by an edge that was offline
    expect(lastWritten(event('c', { eventTime: at(70), series: { lastObservedTime: at(80) } }))).toBe(80_000);
    expect(lastWritten(event('d', { lastTimestamp: 'not a time' }))).toBe(0);
  });

  it('deletes what is past the TTL, the oldest first, at most `max`, each at the version seen', () => {
    const events = [event('new', { created: 3_000 }), event('old', { created: 100 }), event('older', { created: 50 }), event('edge', { created: 400 })];
    expect(planEventExpiry(events, 3_600_000 + 400_000, 3_600_000, 10).map((e) => e.name)).toEqual(['older', 'old', 'edge']);
    expect(planEventExpiry(events, 3_600_000 + 400_000, 3_600_000, 2)).toEqual([
      { namespace: 'default', name: 'older', resourceVersion: 'older-rv' },
      { namespace: 'default', name: 'old', resourceVersion: 'old-rv' },
    ]);
    expect(planEventExpiry(events, 3_600_000 + 399_999, 3_600_000, 10).map((e) => e.name)).toEqual(['older', 'old']);
  });
});
