import { randomInt } from 'node:crypto';
import type { EdgeEvent } from '../../shared/protocol/envelope.js';
import { LruMap } from './lru-map.js';
import type { EventType, InvolvedObject } from './event-types.js';
import { SpamFilter } from './spam-filter.js';

/** client-go's aggregation: from the 10th distinct message with one aggregate key within 600 s, events are combined. */
export const MAX_SIMILAR_EVENTS = 10;
export const SIMILAR_INTERVAL_MS = 600_000;
export const COMBINED_PREFIX = '(combined from similar events): ';
const CACHE_SIZE = 4096;

export interface NewEvent {
  involvedObject: InvolvedObject;
  type: EventType;
  reason: string;
  message: string;
}

interface Similar {
  messages: Set<string>;
  at: number;
}

interface Observed {
  name: string;
  count: number;
  firstTimestamp: string;
}

const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const objectKey = (o: InvolvedObject): string => JSON.stringify([o.kind, o.namespace ?? '', o.name, o.uid]);

/**
 * client-go's EventCorrelator (tools/record/events_cache.go) for one kubelet: an event identical
 * to one seen before (object, fieldPath, type, reason, message) becomes that event again with
 * count+1 and a later lastTimestamp; from the 10th distinct message with the same object, type
 * and reason within 600 s, events become one `(combined from similar events): …` event, itself
 * counted; then the spam filter may drop it. The edge's clock gives the times.
 */
export class EventCorrelator {
  private readonly similar = new LruMap<string, Similar>(CACHE_SIZE);
  private readonly observed = new LruMap<string, Observed>(CACHE_SIZE);
  private readonly spam: SpamFilter;
  /** Keeps apart the names of events recorded in the same millisecond (by this process or one before it: it starts anywhere). */
  private sequence: number;

  constructor(spam = new SpamFilter(), firstSequence = randomInt(1_000_000)) {
    this.spam = spam;
    this.sequence = firstSequence;
  }

  /** The event to send (new, or a repeat under an earlier name); undefined when the spam filter drops it. */
  correlate(input: NewEvent, now: number): EdgeEvent | undefined {
    const { key, event } = this.aggregate(input, now);
    const seen = this.observed.get(key);
    const correlated: EdgeEvent = seen ? { ...event, name: seen.name, count: seen.count + 1, firstTimestamp: seen.firstTimestamp } : event;
    this.observed.set(key, { name: correlated.name, count: correlated.count, firstTimestamp: correlated.firstTimestamp });
    return this.spam.allow(objectKey(input.involvedObject), now) ? correlated : undefined;
  }

  /** EventAggregate: the event itself under its own key, or the combined event under the aggregate key. */
  private aggregate(input: NewEvent, now: number): { key: string; event: EdgeEvent } {
    const o = input.involvedObject;
    const aggregateKey = JSON.stringify([objectKey(o), input.type, input.reason]);
    const last = this.similar.get(aggregateKey);
    const record: Similar = last && now - last.at <= SIMILAR_INTERVAL_MS ? last : { messages: new Set(), at: now };
    record.messages.add(input.message);
    record.at = now;
    this.similar.set(aggregateKey, record);
    if (record.messages.size < MAX_SIMILAR_EVENTS) {
      return { key: JSON.stringify([aggregateKey, o.fieldPath ?? '', input.message]), event: this.newEvent(input, input.message, now) };
    }
    // Not growing the set any further (client-go pops one).
    record.messages.delete(record.messages.values().next().value as string);
    return { key: aggregateKey, event: this.newEvent(input, COMBINED_PREFIX + input.message, now) };
  }

  private newEvent(input: NewEvent, message: string, now: number): EdgeEvent {
    const at = rfc3339(now);
    return { name: this.nameFor(input.involvedObject.name, now), involvedObject: input.involvedObject, reason: input.reason, message, type: input.type, count: 1, firstTimestamp: at, lastTimestamp: at };
  }

  /** client-go's `<object name>.<UnixNano as hex>`; events in one millisecond take the next nanoseconds. */
  private nameFor(objectName: string, now: number): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    return `${objectName}.${(BigInt(now) * 1_000_000n + BigInt(this.sequence)).toString(16)}`;
  }
}
