import { describe, expect, it } from 'vitest';
import { COMBINED_PREFIX, EventCorrelator, type NewEvent } from '../../../edge/events/correlator.js';
import { containerRef, nodeRef } from '../../../edge/events/event-types.js';
import { formatGoDuration } from '../../../shared/go-duration.js';
import { SpamFilter } from '../../../edge/events/spam-filter.js';

const T0 = Date.UTC(2026, 0, 1);
const S = 1000;
const pod = { metadata: { name: 'web', namespace: 'default', uid: 'u1' } };
const unhealthy = (message: string): NewEvent => ({ involvedObject: containerRef(pod, 'app'), type: 'Warning', reason: 'Unhealthy', message });

describe('EventCorrelator', () => {
  it('names an event <object>.<time in ns as hex>, counted once, first = last timestamp', () => {
    const event = new EventCorrelator().correlate(unhealthy('Liveness probe failed: boom'), T0 + 1500)!;
    expect(event.name).toMatch(/^web\.[0-9a-f]{16}$/);
    expect(BigInt(`0x${event.name.slice(4)}`) / 1_000_000n).toBe(BigInt(T0 + 1500));
    expect(event).toMatchObject({ count: 1, firstTimestamp: '2026-01-01T00:00:01Z', lastTimestamp: '2026-01-01T00:00:01Z', reason: 'Unhealthy', type: 'Warning' });
    expect(event.involvedObject).toEqual({ kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', fieldPath: 'spec.containers{app}' });
  });

  it('an identical event becomes count+1 and a later lastTimestamp under the first one name', () => {
    const c = new EventCorrelator();
    const first = c.correlate(unhealthy('Liveness probe failed: boom'), T0)!;
    const second = c.correlate(unhealthy('Liveness probe failed: boom'), T0 + 10 * S)!;
    const third = c.correlate(unhealthy('Liveness probe failed: boom'), T0 + 20 * S)!;
    expect(third).toMatchObject({ name: first.name, count: 3, firstTimestamp: first.firstTimestamp, lastTimestamp: '2026-01-01T00:00:20Z' });
    expect(second.count).toBe(2);
  });

  it('events differing in message, fieldPath or object are not repeats; two in one millisecond get different names', () => {
    const c = new EventCorrelator();
    const a = c.correlate(unhealthy('a'), T0)!;
    const b = c.correlate(unhealthy('b'), T0)!;
    const other = c.correlate({ ...unhealthy('a'), involvedObject: containerRef(pod, 'sidecar') }, T0)!;
    expect(new Set([a.name, b.name, other.name]).size).toBe(3);
    expect([a.count, b.count, other.count]).toEqual([1, 1, 1]);
  });

  it('from the 10th distinct message with one object, type and reason within 600 s, events are combined and counted', () => {
    const c = new EventCorrelator();
    const events = Array.from({ length: 12 }, (_, i) => c.correlate(unhealthy(`failed ${i}`), T0 + i * S)!);
    expect(events.slice(0, 9).every((e) => e.count === 1 && !e.message.startsWith(COMBINED_PREFIX))).toBe(true);
    expect(events[9]).toMatchObject({ message: `${COMBINED_PREFIX}failed 9`, count: 1 });
    expect(events[10]).toMatchObject({ name: events[9]!.name, message: `${COMBINED_PREFIX}failed 10`, count: 2 });
    expect(events[11]).toMatchObject({ name: events[9]!.name, count: 3, firstTimestamp: events[9]!.firstTimestamp });
  });

  it('similar events more than 600 s apart start over', () => {
    const c = new EventCorrelator();
    for (let i = 0; i < 9; i++) c.correlate(unhealthy(`failed ${i}`), T0);
    expect(c.correlate(unhealthy('failed 9'), T0 + 601 * S)!.message).toBe('failed 9');
  });

  it('the spam filter lets 25 events about an object through, then one per 300 s', () => {
    const c = new EventCorrelator(new SpamFilter());
    const node = nodeRef('edge-1');
    const passed = Array.from({ length: 30 }, (_, i) => c.correlate({ involvedObject: node, type: 'Normal', reason: `R${i % 5}`, message: 'm' }, T0)).filter(Boolean);
    expect(passed).toHaveLength(25);
    expect(c.correlate({ involvedObject: node, type: 'Normal', reason: 'R0', message: 'm' }, T0 + 299 * S)).toBeUndefined();
    expect(c.correlate({ involvedObject: node, type: 'Normal', reason: 'R0', message: 'm' }, T0 + 600 * S)).toBeDefined();
    expect(c.correlate(unhealthy('another object'), T0)).toBeDefined();
  });
});

describe('formatGoDuration', () => {
  it.each([[0, '0s'], [523, '523ms'], [1200, '1.2s'], [1000, '1s'], [62_500, '1m2.5s'], [3_600_000, '1h0m0s']])('%d ms is %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
