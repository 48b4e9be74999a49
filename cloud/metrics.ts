import type { Counters } from '../shared/counters.js';
import { DENIED, REFUSED, THROTTLED } from './hub/broker.js';
import { HUB_REJECTED, type HubStats } from './hub/index.js';
import { JOIN_REFUSED } from './join/join-service.js';

/** Counter names beside the broker's (cloud/hub/broker.ts). */
export const API_REFUSED = 'kedge_api_refused_total';

export function describeCounters(counters: Counters): Counters {
  return counters
    .describe(REFUSED, 'MQTT clients refused or cut off by the embedded broker, by reason')
    .describe(DENIED, 'publishes, retained publishes and subscriptions the broker denied, by action')
    .describe(HUB_REJECTED, 'messages from nodes the cloud hub rejected (not the sender\'s own, retained, or refused for good by the API), by reason')
    .describe(THROTTLED, 'times a client was slowed down for going over its message rate')
    .describe(API_REFUSED, 'API requests and connections refused, by reason (401, 403, 413, 422, 429, timeouts, slow streams, plain HTTP)')
    .describe(JOIN_REFUSED, 'join requests refused, by reason');
}

/** The counters, then the hub's (cloud-hub.ts HubStats), in Prometheus' text format. */
export function metricsText(counters: Counters, hub: HubStats | undefined): string {
  const lines = Object.entries(hub ?? {}).map(([name, value]) => `# TYPE kedge_hub_${snake(name)}_total counter\nkedge_hub_${snake(name)}_total ${value}`);
  return counters.text() + (lines.length ? lines.join('\n') + '\n' : '');
}

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

