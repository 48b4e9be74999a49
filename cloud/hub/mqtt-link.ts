import { connect, type MqttClient } from 'mqtt';
import { fromEvent, mergeMap, type Observable } from 'rxjs';
import { encode } from '../../shared/protocol/codec.js';
import type { DownMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Logger } from '../../shared/log.js';
import { decodeInbound, type Inbound } from './inbound.js';

export interface LinkOptions {
  brokerUrl: string;
  clientId: string;
  username: string;
  password: string;
  keepaliveMs: number;
  reconnectMs: number;
  logger: Logger;
  /** Called once per payload dropped by validation [SYNC-1]. */
  onMalformed(): void;
}

/** The hub's MQTT client: publishes down messages, streams validated up/presence messages. */
export interface MqttLink {
  publish(node: string, message: DownMessage): void;
  /** Validated inbound messages; malformed ones are dropped, counted and logged. */
  readonly inbound$: Observable<Inbound>;
  /** Resolves on the first successful subscription to every node's up and presence topics. */
  readonly subscribed: Promise<void>;
  close(): Promise<void>;
}

export function openMqttLink(options: LinkOptions): MqttLink {
  const { logger } = options;
  const client: MqttClient = connect(options.brokerUrl, {
    clientId: options.clientId,
    username: options.username,
    password: options.password,
    protocolVersion: 4, // aedes speaks MQTT 3.1.1 only
    clean: true, // [protocol] nothing depends on a persistent session
    keepalive: Math.max(1, Math.round(options.keepaliveMs / 1000)),
    reconnectPeriod: options.reconnectMs,
  });
  client.on('error', (err) => logger.warn('mqtt client error', { error: err.message }));

  const subscribed = new Promise<void>((resolve) => {
    // Clean sessions forget subscriptions: subscribe again on every (re)connect.
    client.on('connect', () => {
      client.subscribe([topics.allUp, topics.allPresence], { qos: 1 }, (err) => {
        if (err) logger.error('subscribe failed', { error: err.message });
        else resolve();
      });
    });
  });

  const inbound$ = fromEvent(client, 'message', (topic: string, payload: Buffer) => ({ topic, payload })).pipe(
    mergeMap(({ topic, payload }) => {
      const decoded = decodeInbound(topic, payload);
      if (decoded.ok) return [decoded.message];
      // An empty retained payload on a presence topic only clears it: not an error.
      if (payload.length > 0 || !topic.endsWith('/presence')) {
        options.onMalformed(); // [SYNC-1] dropped, counted, logged; never fatal
        logger.warn('dropped malformed message', { topic, reason: decoded.reason });
      }
      return [];
    }),
  );

  return {
    publish(node, message) {
      client.publish(topics.down(node), encode(message), { qos: 1 }, (err) => {
        if (err) logger.warn('publish failed', { node, type: message.type, error: err.message });
      });
    },
    inbound$,
    subscribed,
    close: async () => {
      await client.endAsync(true);
    },
  };
}
