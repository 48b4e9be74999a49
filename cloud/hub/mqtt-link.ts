import { reconnectDelay } from '../../shared/backoff.js';
import { keepaliveSeconds } from '../../shared/timing.js';
import { connect, type MqttClient } from 'mqtt';
import { mergeMap, Subject, type Observable } from 'rxjs';
import type { Cancel, Clock } from '../../shared/clock.js';
import { encode } from '../../shared/protocol/codec.js';
import type { DownMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Logger } from '../../shared/log.js';
import { LogSampler, unloggedFields } from '../../shared/log-sampler.js';
import { decodeInbound, type Inbound } from './inbound.js';

export interface LinkOptions {
  brokerUrl: string;
  clientId: string;
  username: string;
  password: string;
  /** The CA to trust for an mqtts:// broker (default: the system's). */
  ca?: string;
  keepaliveMs: number;
  /** Reconnect backoff: the first retry after `reconnectMinMs`, doubling up to `reconnectMaxMs`. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  clock: Clock;
  logger: Logger;
  /** Called once per payload dropped by validation [SYNC-1] (logged with sampling). */
  onMalformed(): void;
  /** The session with the broker ended (broker restart, network): every node is now unheard. */
  onDown(): void;
}

/** The hub's MQTT client: publishes down messages, streams validated up/presence messages. */
export interface MqttLink {
  /** Publishes on the current session; dropped when there is none (nobody is connected then). */
  publish(node: string, message: DownMessage): void;
  /** Validated inbound messages; malformed ones are dropped, counted and logged. */
  readonly inbound$: Observable<Inbound>;
  /** Resolves on the first successful subscription to every node's up and presence topics. */
  readonly subscribed: Promise<void>;
  /** Subscribed to the up and presence topics right now. */
  readonly up: boolean;
  /** When `up` last changed (or the link opened), epoch ms on the Clock. */
  readonly since: number;
  close(): Promise<void>;
}

/**
 * Survives the broker going away (an in-memory broker restarted, an external one bounced):
 * mqtt.js' own reconnect is off; every attempt is a fresh client scheduled on the Clock
 * with capped exponential backoff, and every session subscribes again (clean sessions).
 * Nothing relies on the broker keeping state.
 */
export function openMqttLink(options: LinkOptions): MqttLink {
  const { logger, clock } = options;
  const packets = new Subject<{ topic: string; payload: Buffer; retain: boolean }>();
  let client: MqttClient | undefined;
  let up = false;
  let since = clock.now();
  let attempt = 0;
  let stopped = false;
  let cancelRetry: Cancel | undefined;
  let markSubscribed!: () => void;
  const subscribed = new Promise<void>((resolve) => (markSubscribed = resolve));

  const open = (): void => {
    if (stopped) return;
    const c = connect(options.brokerUrl, {
      clientId: options.clientId,
      username: options.username,
      password: options.password,
      protocolVersion: 4, // aedes speaks MQTT 3.1.1 only
      clean: true, // [protocol] nothing depends on a persistent session
      keepalive: keepaliveSeconds(options.keepaliveMs),
      reconnectPeriod: 0, // we reconnect ourselves, on the Clock
      ...(options.ca ? { ca: options.ca } : {}),
    });
    client = c;
    c.on('message', (topic, payload, packet) => client === c && packets.next({ topic, payload, retain: packet.retain }));
    c.on('error', (err) => logger.warn('mqtt client error', { error: err.message }));
    c.on('connect', () => {
      c.subscribe([topics.allUp, topics.allPresence], { qos: 1 }, (err) => {
        if (client !== c) return;
        if (err) {
          logger.error('subscribe failed; reconnecting', { error: err.message });
          c.end(true);
          return;
        }
        attempt = 0;
        up = true;
        since = clock.now();
        logger.info('subscribed to the broker', { broker: options.brokerUrl });
        markSubscribed();
      });
    });
    c.on('close', () => {
      if (client !== c) return;
      client = undefined;
      c.end(true);
      if (up) {
        up = false;
        since = clock.now();
        logger.warn('lost the broker; every node counts as disconnected until its next hello');
        options.onDown();
      }
      if (stopped) return;
      const delay = reconnectDelay(attempt++, options.reconnectMinMs, options.reconnectMaxMs, Math.random);
      cancelRetry = clock.setTimer(delay, () => {
        cancelRetry = undefined;
        open();
      });
    });
  };
  open();

  const malformedLog = new LogSampler(clock);
  const inbound$ = packets.pipe(
    mergeMap(({ topic, payload, retain }) => {
      const decoded = decodeInbound(topic, payload);
      // MQTT 3.1.1 sets the flag only on what a new subscription gets from the broker's store.
      if (decoded.ok) return [retain ? { ...decoded.message, retained: true } : decoded.message];
      // An empty retained payload on a presence topic only clears it: not an error.
      if (payload.length > 0 || !topic.endsWith('/presence')) {
        options.onMalformed(); // [SYNC-1] dropped, counted, logged (sampled); never fatal
        const unlogged = malformedLog.sample('malformed');
        if (unlogged !== undefined) logger.warn('dropped malformed message', { topic, reason: decoded.reason, ...unloggedFields(unlogged) });
      }
      return [];
    }),
  );

  return {
    publish(node, message) {
      const c = client;
      if (!c?.connected) return; // the node re-sends, or we do after its next hello
      c.publish(topics.down(node), encode(message), { qos: 1 }, (err) => {
        if (err) logger.warn('publish failed', { node, type: message.type, error: err.message });
      });
    },
    inbound$,
    subscribed,
    get up() {
      return up;
    },
    get since() {
      return since;
    },
    close: async () => {
      stopped = true;
      cancelRetry?.();
      const c = client;
      client = undefined;
      up = false;
      packets.complete();
      await c?.endAsync(true).catch(() => undefined);
    },
  };
}
