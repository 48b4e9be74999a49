import mqtt, { type IClientPublishOptions, type MqttClient } from 'mqtt';
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import { reconnectDelay } from './backoff.js';
import { signedByAnotherCa } from './certificate-refused.js';
import type { Cancel, Clock } from './clock.js';
import type { Logger } from './log.js';
import { credentialRefused, credentialRetryMs, plainRefusalMessages, type RefusalMessages } from './mqtt-refusals.js';
import { keepaliveSeconds } from './timing.js';
import type { Connectivity, RetainedMessage, SessionOps, SessionSpec, Transport, TransportIdentity, TransportMessage } from './transport.js';

export type { RefusalMessages } from './mqtt-refusals.js';

export interface MqttTransportOptions extends TransportIdentity {
  brokerUrl: string;
  /** The CA to trust for an mqtts:// broker (default: the system's). */
  ca?: string;
  keepaliveMs: number;
  /** How long one attempt to connect may take (default: mqtt.js', 30 s). */
  connectTimeoutMs?: number;
  /** Reconnect backoff: the first retry after about `reconnectMinMs`, doubling up to `reconnectMaxMs`. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  clock: Clock;
  logger: Logger;
  /** The jitter of the reconnect backoff (roots pass Math.random; tests a fixed one). */
  random: () => number;
  /** What to log when the broker refuses the credential or the certificate (default: plainRefusalMessages). */
  refusals?: RefusalMessages;
}

/**
 * The Transport over a real MQTT broker (aedes or Mosquitto). mqtt.js' own reconnect is off:
 * every attempt is a fresh client scheduled on the Clock with capped exponential backoff and
 * jitter, so tests drive reconnects with a fake clock. Sessions are clean (MQTT 3.1.1, which
 * aedes speaks): each one subscribes again and nothing relies on the broker keeping state.
 */
export class MqttTransport implements Transport {
  private readonly state: BehaviorSubject<Connectivity>;
  private readonly packets = new Subject<TransportMessage>();
  private spec: SessionSpec | undefined;
  private client: MqttClient | undefined;
  private attempt = 0;
  private cancelRetry: Cancel | undefined;
  private stopped = false;
  private closing: Promise<void> | undefined;
  /** The broker said our credential is bad (CONNACK 4 or 5): retried, but slowly. */
  private refused = false;
  private lastHeardAt: number | undefined;

  constructor(private readonly options: MqttTransportOptions) {
    this.state = new BehaviorSubject<Connectivity>({ connected: false, since: options.clock.now() });
  }

  get connectivity$(): Observable<Connectivity> {
    return this.state.asObservable();
  }

  get connectivity(): Connectivity {
    return this.state.value;
  }

  get inbound$(): Observable<TransportMessage> {
    return this.packets.asObservable();
  }

  get lastHeard(): number | undefined {
    return this.lastHeardAt;
  }

  start(spec: SessionSpec): void {
    if (this.spec) throw new Error('the transport is started already');
    this.spec = spec;
    this.connect();
  }

  publish(topic: string, payload: Buffer): Promise<void> {
    return this.send(this.client, topic, payload, { qos: 1 });
  }

  retain(message: RetainedMessage): Promise<void> {
    return this.send(this.client, message.topic, message.payload, { qos: 1, retain: true });
  }

  close(farewell?: RetainedMessage): Promise<void> {
    return (this.closing ??= this.shutdown(farewell));
  }

  private async shutdown(farewell: RetainedMessage | undefined): Promise<void> {
    this.stopped = true;
    this.cancelRetry?.();
    const client = this.client;
    this.client = undefined;
    if (client?.connected && farewell) {
      // QoS 0: the callback fires once the packet is written, which is all we wait for.
      await new Promise<void>((resolve) => client.publish(farewell.topic, farewell.payload, { qos: 0, retain: true }, () => resolve()));
    }
    await client?.endAsync(true).catch(() => undefined);
    this.setConnected(false);
    this.packets.complete();
    this.state.complete();
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
    if (this.stopped) return;
    const o = this.options;
    const will = this.spec?.will;
    const client = mqtt.connect(o.brokerUrl, {
      clientId: o.clientId,
      username: o.username,
      password: o.password,
      protocolVersion: 4, // aedes speaks MQTT 3.1.1 only
      clean: true, // nothing depends on a persistent session (docs/protocol.md)
      keepalive: keepaliveSeconds(o.keepaliveMs),
      reconnectPeriod: 0, // we reconnect ourselves, on the Clock
      ...(o.connectTimeoutMs !== undefined ? { connectTimeout: o.connectTimeoutMs } : {}),
      ...(will ? { will: { topic: will.topic, payload: will.payload, qos: 1, retain: true } } : {}),
      ...(o.ca ? { ca: o.ca } : {}),
    });
    this.client = client;
    // Attached before CONNACK so nothing that arrives early is lost.
    client.on('message', (topic, payload, packet) => this.client === client && this.packets.next({ topic, payload, retained: packet.retain }));
    client.on('packetreceive', () => (this.lastHeardAt = o.clock.now()));
    client.on('connect', () => void this.startSession(client));
    client.on('error', (err) => this.onError(err));
    client.on('close', () => this.onClose(client));
  }

  /** Subscribes, runs the spec's onSession, then counts as connected; any failure ends the session. */
  private async startSession(client: MqttClient): Promise<void> {
    const spec = this.spec!;
    try {
      if (spec.subscriptions.length > 0) await client.subscribeAsync([...spec.subscriptions], { qos: 1 });
      await spec.onSession?.(this.sessionOps(client));
    } catch (err) {
      this.options.logger.warn('session setup failed; reconnecting', { error: (err as Error).message });
      client.end(true);
      return;
    }
    if (this.client !== client || !client.connected) return;
    this.attempt = 0;
    this.refused = false;
    this.options.logger.info('connected', { broker: this.options.brokerUrl });
    this.setConnected(true);
  }

  private sessionOps(client: MqttClient): SessionOps {
    return {
      publish: (topic, payload) => this.send(client, topic, payload, { qos: 1 }),
      retain: (message) => this.send(client, message.topic, message.payload, { qos: 1, retain: true }),
    };
  }

  private onError(err: Error & { code?: unknown }): void {
    const { logger, ca, brokerUrl, refusals = plainRefusalMessages } = this.options;
    const refused = credentialRefused(err);
    if (refused && !this.refused) logger.error(refusals.credential, { error: err.message, retryMs: this.credentialRetryMs() });
    else if (ca !== undefined && signedByAnotherCa(err)) logger.error(refusals.otherCa, { broker: brokerUrl, error: err.message });
    else if (!refused) logger.warn('mqtt error', { error: err.message });
    this.refused = refused;
  }

  private credentialRetryMs(): number {
    return credentialRetryMs(this.options.reconnectMaxMs);
  }

  private onClose(client: MqttClient): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end(true); // fails the publishes still waiting for an ack: mqtt.js alone would leave them pending
    if (this.state.value.connected) this.options.logger.warn('disconnected from broker');
    this.setConnected(false);
    if (this.stopped) return;
    const { reconnectMinMs, reconnectMaxMs, random, clock } = this.options;
    const delay = this.refused ? this.credentialRetryMs() : reconnectDelay(this.attempt++, reconnectMinMs, reconnectMaxMs, random);
    this.cancelRetry = clock.setTimer(delay, () => {
      this.cancelRetry = undefined;
      this.connect();
    });
  }

  private setConnected(connected: boolean): void {
    if (this.state.value.connected === connected || this.state.closed) return;
    this.state.next({ connected, since: this.options.clock.now() });
  }
}
