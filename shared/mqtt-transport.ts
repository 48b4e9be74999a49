import mqtt, { type IClientPublishOptions, type MqttClient } from 'mqtt';
import type { Observable } from 'rxjs';
import { splitBrokerUrls } from './broker-urls.js';
import { signedByAnotherCa } from './certificate-refused.js';
import type { Clock } from './clock.js';
import type { Logger } from './log.js';
import { plainRefusalMessages, type RefusalMessages } from './mqtt-refusals.js';
import { DEFAULT_LANE_LIMITS, PublishLanes, type LaneLimits, type PublishOrder } from './publish-lanes.js';
import { keepaliveSeconds } from './timing.js';
import type { Connectivity, ReconnectTiming, RetainedMessage, SessionOps, SessionSpec, Transport, TransportIdentity, TransportMessage } from './transport.js';
import { TransportSession } from './transport-session.js';

export type { RefusalMessages } from './mqtt-refusals.js';

export interface MqttTransportOptions extends TransportIdentity, ReconnectTiming {
  /** One broker, or members of a cluster comma-separated: the first is tried first, each reconnect tries the next. */
  brokerUrl: string;
  /** The CA to trust for an mqtts:// broker (default: the system's). */
  ca?: string;
  /** How long one attempt to connect may take (default: mqtt.js', 30 s). */
  connectTimeoutMs?: number;
  clock: Clock;
  logger: Logger;
  /** What to log when the broker refuses the credential or the certificate (default: plainRefusalMessages). */
  refusals?: RefusalMessages;
  /** The bounds of the bulk lane (default DEFAULT_LANE_LIMITS; the socket's unsent bound is at most its high-water mark). */
  lanes?: Partial<LaneLimits>;
}

/**
 * The Transport over a real MQTT broker (aedes or Mosquitto). mqtt.js' own reconnect is off:
 * every attempt is a fresh client scheduled on the Clock with capped exponential backoff and
 * jitter, so tests drive reconnects with a fake clock. Sessions are clean (MQTT 3.1.1, which
 * aedes speaks): each one subscribes again and nothing relies on the broker keeping state.
 */
export class MqttTransport implements Transport {
  private readonly session: TransportSession;
  private client: MqttClient | undefined;
  /** The current client's lanes: control at once, bulk while its socket has room (publish-lanes.ts). */
  private lanes: PublishLanes | undefined;
  private readonly brokers: string[];
  /** The broker of the current (or last) attempt: after a session or an attempt ends, the next one is tried. */
  private brokerIndex = -1;

  constructor(private readonly options: MqttTransportOptions) {
    this.brokers = splitBrokerUrls(options.brokerUrl);
    const credentialRefusedMessage = (options.refusals ?? plainRefusalMessages).credential;
    this.session = new TransportSession({ ...options, credentialRefusedMessage }, () => this.connect());
  }

  get connectivity$(): Observable<Connectivity> {
    return this.session.connectivity$;
  }

  get connectivity(): Connectivity {
    return this.session.connectivity;
  }

  get inbound$(): Observable<TransportMessage> {
    return this.session.inbound$;
  }

  get lastHeard(): number | undefined {
    return this.session.lastHeard;
  }

  start(spec: SessionSpec): void {
    this.session.start(spec);
  }

  publish(topic: string, payload: Buffer, order?: PublishOrder): Promise<void> {
    return this.publishOn(this.client, topic, payload, order);
  }

  retain(message: RetainedMessage): Promise<void> {
    return this.send(this.client, message.topic, message.payload, { qos: 1, retain: true });
  }

  close(farewell?: RetainedMessage): Promise<void> {
    return this.session.close(() => this.disconnect(farewell));
  }

  private async disconnect(farewell: RetainedMessage | undefined): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.closeLanes();
    if (client?.connected && farewell) {
      // QoS 0: the callback fires once the packet is written, which is all we wait for.
      await new Promise<void>((resolve) => client.publish(farewell.topic, farewell.payload, { qos: 0, retain: true }, () => resolve()));
    }
    await client?.endAsync(true).catch(() => undefined);
  }

  /** Through the lanes of `client`, only while it is the current one (its lanes are then `this.lanes`). */
  private publishOn(client: MqttClient | undefined, topic: string, payload: Buffer, order: PublishOrder | undefined): Promise<void> {
    if (!client?.connected || client !== this.client || !this.lanes) return Promise.reject(new Error('not connected'));
    return this.lanes.publish(topic, payload, order);
  }

  /**
   * On `client` only while it is the current one. A publish still unacknowledged when its
   * session ends rejects: ending a clean-session client that has mqtt.js' reconnect off (as
   * onClose and close do) fails every callback it still holds.
   */
  private send(client: MqttClient | undefined, topic: string, payload: Buffer, opts: IClientPublishOptions): Promise<void> {
    if (!client?.connected || client !== this.client) return Promise.reject(new Error('not connected'));
    return client.publishAsync(topic, payload, opts).then(() => undefined);
  }

  private connect(): void {
    const o = this.options;
    const will = this.session.spec.will;
    this.brokerIndex = (this.brokerIndex + 1) % this.brokers.length;
    const client = mqtt.connect(this.broker, {
      clientId: o.clientId,
      username: o.username,
      password: o.password,
      protocolVersion: 4, // aedes speaks MQTT 3.1.1 only
      clean: true, // nothing depends on a persistent session (docs/protocol.md)
      keepalive: keepaliveSeconds(o.keepaliveMs),
      reconnectPeriod: 0, // we reconnect ourselves, on the Clock
      // MQTT.js logs through `debug`, which allocates on every call even when off: silent unless DEBUG asks.
      ...(process.env.DEBUG ? {} : { log: silent }),
      ...(o.connectTimeoutMs !== undefined ? { connectTimeout: o.connectTimeoutMs } : {}),
      ...(will ? { will: { topic: will.topic, payload: will.payload, qos: 1, retain: true } } : {}),
      ...(o.ca ? { ca: o.ca } : {}),
    });
    this.client = client;
    this.lanes = this.openLanes(client);
    // Attached before CONNACK so nothing that arrives early is lost.
    client.on('message', (topic, payload, packet) => this.client === client && this.session.deliver({ topic, payload, retained: packet.retain }));
    client.on('packetreceive', () => this.session.heard());
    client.on('connect', () => void this.startSession(client));
    client.on('error', (err) => this.onError(err));
    client.on('close', () => this.onClose(client));
  }

  /** The lanes of a new client: bulk goes while its socket has room, and the rest when it drains or the broker acks. */
  private openLanes(client: MqttClient): PublishLanes {
    const socket = client.stream;
    const limits = { ...DEFAULT_LANE_LIMITS, ...this.options.lanes };
    // Below the high-water mark a socket emits no 'drain': bulk would wait for the next ack.
    limits.maxUnsentBytes = Math.min(limits.maxUnsentBytes, socket.writableHighWaterMark);
    const lanes = new PublishLanes({ unsentBytes: () => socket.writableLength, write: (topic, payload) => this.send(client, topic, payload, { qos: 1 }) }, limits);
    socket.on('drain', () => lanes.flush());
    return lanes;
  }

  private closeLanes(): void {
    this.lanes?.close(new Error('not connected'));
    this.lanes = undefined;
  }

  /** Subscribes, runs the spec's onSession, then counts as connected; any failure ends the session. */
  private async startSession(client: MqttClient): Promise<void> {
    const spec = this.session.spec;
    try {
      if (spec.subscriptions.length > 0) await client.subscribeAsync([...spec.subscriptions], { qos: 1 });
      await spec.onSession?.(this.sessionOps(client));
    } catch (err) {
      this.options.logger.warn('session setup failed; reconnecting', { error: (err as Error).message });
      client.end(true);
      return;
    }
    if (this.client !== client || !client.connected) return;
    this.options.logger.info('connected', { broker: this.broker });
    this.session.established();
  }

  /** The broker of the current (or last) attempt. */
  get broker(): string {
    return this.brokers[Math.max(0, this.brokerIndex)]!;
  }

  private sessionOps(client: MqttClient): SessionOps {
    return {
      publish: (topic, payload, order) => this.publishOn(client, topic, payload, order),
      retain: (message) => this.send(client, message.topic, message.payload, { qos: 1, retain: true }),
    };
  }

  private onError(err: Error & { code?: unknown }): void {
    const { logger, ca, refusals = plainRefusalMessages } = this.options;
    if (this.session.failed(err)) return;
    if (ca !== undefined && signedByAnotherCa(err)) logger.error(refusals.otherCa, { broker: this.broker, error: err.message });
    else logger.warn('mqtt error', { error: err.message });
  }

  private onClose(client: MqttClient): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.closeLanes();
    client.end(true); // fails the publishes still waiting for an ack: mqtt.js alone would leave them pending
    if (this.session.connectivity.connected) this.options.logger.warn('disconnected from broker');
    this.session.lost();
  }
}

const silent = (): void => {};
