import { randomUUID } from 'node:crypto';
import type { Client } from 'aedes';
import MQEmitterRedis from 'mqemitter-redis';
import type { Logger } from '../../shared/log.js';
import type { SharedBrokerState } from '../hub/broker.js';
import { redisOptions, SharedRedisPersistence } from './redis-persistence.js';

/** What aedes' Client has beyond its published types. */
type Delivering = Client & { connackSent: boolean; deliverQoS(packet: unknown, cb: () => void): void };

/**
 * A member's share of a cluster on the Redis at `url`. aedes restores a persistent session's
 * subscriptions before it sends CONNACK; with Redis between the two steps a message may then
 * go out before the CONNACK, and mqtt.js, waiting to acknowledge it, never reads the CONNACK.
 * So each client's deliveries wait for its CONNACK (aedes' `connackSent` event).
 */
export function sharedRedisState(url: string, logger: Logger, heartbeatMs?: number): SharedBrokerState {
  const options = redisOptions(url);
  const persistence = new SharedRedisPersistence(options);
  const mq = MQEmitterRedis({ ...options, maxRetriesPerRequest: null });
  const waiting = new WeakMap<Client, (() => void)[]>();
  return {
    aedes: { persistence, mq, id: randomUUID(), ...(heartbeatMs ? { heartbeatInterval: heartbeatMs } : {}) },
    attach(broker) {
      broker.on('connackSent', (_packet, client) => {
        const pending = waiting.get(client) ?? [];
        waiting.delete(client);
        for (const deliver of pending) deliver();
      });
      // Redis unreachable: aedes reports what failed; ioredis keeps reconnecting.
      (broker as NodeJS.EventEmitter).on('error', (err: Error) => logger.error('broker cluster state failed', { error: err.message }));
    },
    onClient(plain) {
      const client = plain as Delivering;
      const deliver = client.deliverQoS.bind(client);
      // Gone before its CONNACK: what waits is let through, to fail and release aedes' emitter.
      client.conn.once('close', () => waiting.get(client)?.splice(0).forEach((run) => run()));
      client.deliverQoS = (packet, cb) => {
        if (client.connackSent || client.closed) return deliver(packet, cb);
        const pending = waiting.get(client) ?? [];
        pending.push(() => deliver(packet, cb));
        waiting.set(client, pending);
      };
    },
    close: () => persistence.destroy(),
  };
}
