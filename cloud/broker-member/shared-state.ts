import { randomUUID } from 'node:crypto';
import type { Client } from 'aedes';
import { Redis } from 'ioredis';
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
  // Errors are reported once per outage from the emitter (below); unheard, ioredis prints each retry.
  // After ioredis' 20 retries (about 10 s) a command fails: a member does not start without Redis.
  const [conn, pubConn, subConn] = [0, 1, 2].map(() => new Redis(options).on('error', () => undefined)) as [Redis, Redis, Redis];
  const persistence = new SharedRedisPersistence({ conn });
  const mq = MQEmitterRedis({ pubConn, subConn });
  reportRedisOutages((mq as unknown as { state: NodeJS.EventEmitter }).state, logger);
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
    close: async () => {
      await persistence.destroy().catch(() => undefined);
      for (const redis of [conn, pubConn, subConn]) redis.disconnect(); // aedes may never have quit them (it failed to start)
    },
  };
}

/** Once per outage: ioredis reconnects by itself; an unheard 'error' would end the process. */
function reportRedisOutages(state: NodeJS.EventEmitter, logger: Logger): void {
  let down = false;
  state.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.error('Redis is unreachable: messages between members stop until it is back', { error: err.message });
  });
  for (const event of ['pubConnect', 'subConnect']) {
    state.on(event, () => {
      if (down) logger.info('Redis is reachable again');
      down = false;
    });
  }
}
