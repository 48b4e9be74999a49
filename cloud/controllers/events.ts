import { randomInt } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { KubeObject } from '../../shared/types.js';
import type { ApiClient } from '../client/client.js';

export type EventType = 'Normal' | 'Warning';

/** A core/v1 Event: something the system did or saw, about one object. */
export interface KubeEvent extends KubeObject {
  involvedObject: { apiVersion?: string; kind?: string; namespace?: string; name?: string; uid?: string; resourceVersion?: string; fieldPath?: string };
  reason: string;
  message: string;
  type: EventType;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent: string;
  reportingInstance: string;
}

/** Where control loops say what they did (kubectl describe / get events shows it). */
export interface EventRecorder {
  record(about: KubeObject, type: EventType, reason: string, message: string): void;
}

/** The Event object for `about`; it lives in the object's namespace ("default" for cluster-scoped ones). Pure. */
export function eventFor(about: KubeObject, type: EventType, reason: string, message: string, component: string, now: number, suffix: string): KubeEvent {
  const { name = '', namespace, uid, resourceVersion } = about.metadata;
  const at = new Date(now).toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${name}.${suffix}`, namespace: namespace ?? 'default' },
    involvedObject: { apiVersion: about.apiVersion, kind: about.kind, namespace, name, uid, resourceVersion },
    reason,
    message,
    type,
    source: { component },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    reportingComponent: component,
    reportingInstance: component,
  };
}

/**
 * client-go's Event name suffix, the time in ns in hex: here the ms, with random ns below them
 * (two Events of one object in one ms do not collide). An object's Events, listed in name
 * order as the store keeps them, come in order of time, as `kubectl get events` shows them.
 */
export function timeSuffix(nowMs: number, nanos: number = randomInt(1_000_000)): string {
  return (BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(nanos)).toString(16);
}

/** Writes Events through the API, fire-and-forget: a lost Event is logged, never an error for the caller. */
export function apiEventRecorder(api: ApiClient, clock: Clock, component: string, logger: Logger): EventRecorder {
  return {
    record(about, type, reason, message) {
      const event = eventFor(about, type, reason, message, component, clock.now(), timeSuffix(clock.now()));
      api.create({ resource: 'events', namespace: event.metadata.namespace }, event).catch((err: unknown) =>
        logger.warn('could not record event', { reason, object: about.metadata.name, error: String(err) }),
      );
    },
  };
}

/** Keeps Events in memory: for plan and controller tests. */
export function memoryEventRecorder(): EventRecorder & { events: { about: KubeObject; type: EventType; reason: string; message: string }[] } {
  const events: { about: KubeObject; type: EventType; reason: string; message: string }[] = [];
  return { events, record: (about, type, reason, message) => void events.push({ about, type, reason, message }) };
}
