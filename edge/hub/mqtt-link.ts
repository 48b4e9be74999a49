import mqtt, { type IClientPublishOptions, type MqttClient } from 'mqtt';
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { reconnectDelay } from '../../shared/backoff.js';
import { signedByAnotherCa } from '../../shared/certificate-refused.js';
import { keepaliveSeconds } from '../../shared/timing.js';

export interface Connectivity {
  connected: boolean;
  /** When the link last went up or down (ms since the epoch). */
  since: number;
}

export interface InboundPacket {
  topic: string;
  payload: Buffer;
}

export interface MqttLinkOptions {
  brokerUrl: string;
  clientId: string;
  username: string;
  password: string;
  /** The CA to trust for an mqtts:// broker (default: the system's). */
  ca?: string;
  keepaliveMs: number;
  connectTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  will: { topic: string; payload: Buffer };
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /** Runs on every CONNACK before the link counts as connected (subscribe, presence, hello). */
  onSession: (client: MqttClient) => Promise<void>;
}

/** CONNACK return codes 4 (bad user name or password) and 5 (not authorized). */
const BAD_CREDENTIALS = 4;
const NOT_AUTHORIZED = 5;
/** A refused credential is retried at this many times the longest reconnect wait (30 s by default). */
const CREDENTIAL_RETRY_FACTOR = 30;

/**
 * One MQTT connection that comes back by itself. mqtt.js' own reconnect is off
 * (reconnectPeriod 0): every attempt is a fresh client, scheduled on the Clock with capped
 * exponential backoff and jitter, so tests drive reconnects with a fake clock.
 */
export class MqttLink {
  private readonly state: BehaviorSubject<Connectivity>;
  private readonly packets = new Subject<InboundPacket>();
  private client: MqttClient | undefined;
  private attempt = 0;
  private cancelRetry: Cancel | undefined;
  private stopped = false;
  /** The broker said our credential is bad (CONNACK 4 or 5): retried, but slowly. */
  private credentialRefused = false;
  /** When anything last came from the broker (a message, an ack, a ping's answer). */
  private lastHeardAt: number | undefined;

  constructor(private readonly options: MqttLinkOptions) {
    this.state = new BehaviorSubject<Connectivity>({ connected: false, since: options.clock.now() });
  }

  get connectivity$(): Observable<Connectivity> {
    return this.state.asObservable();
  }

  get connectivity(): Connectivity {
    return this.state.value;
  }

  /** When the broker was last heard from (ms since the epoch); undefined before its first packet. */
  get lastHeard(): number | undefined {
    return this.lastHeardAt;
  }

  get inbound$(): Observable<InboundPacket> {
    return this.packets.asObservable();
  }

  start(): void {
    this.connect();
  }

  /**
   * Publishes on the current session; rejects when there is none (callers re-send later).
   * Allowed while the session is still being set up, so an apply that races our own hello
   * is acked at once; senders that must wait for the hello check `connectivity` first.
   */
  publish(topic: string, payload: Buffer, opts: IClientPublishOptions = { qos: 1 }): Promise<void> {
    const client = this.client;
    if (!client?.connected) return Promise.reject(new Error('not connected'));
    return client.publishAsync(topic, payload, opts).then(() => undefined);
  }

  /** Closes the session (publishing `farewell` first when connected) and stops reconnecting. */
  async stop(farewell?: { topic: string; payload: Buffer }): Promise<void> {
    this.stopped = true;
    this.cancelRetry?.();
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    if (client.connected && farewell) {
      // QoS 0: the callback fires once the packet is written, which is all we wait for.
      await new Promise<void>((resolve) => client.publish(farewell.topic, farewell.payload, { qos: 0, retain: true }, () => resolve()));
    }
    await client.endAsync(true).catch(() => undefined);
    this.setConnected(false);
    this.packets.complete();
    this.state.complete();
  }

  private connect(): void {
    if (this.stopped) return;
    const o = this.options;
    const client = mqtt.connect(o.brokerUrl, {
      clientId: o.clientId,
      username: o.username,
      password: o.password,
      protocolVersion: 4, // aedes speaks MQTT 3.1.1 only
      clean: true, // nothing depends on a persistent session (docs/protocol.md)
      keepalive: keepaliveSeconds(o.keepaliveMs),
      connectTimeout: o.connectTimeoutMs,
      reconnectPeriod: 0, // we reconnect ourselves, on the Clock
      will: { topic: o.will.topic, payload: o.will.payload, qos: 1, retain: true },
      ...(o.ca ? { ca: o.ca } : {}),
    });
    this.client = client;
    // Attached before CONNACK so nothing that arrives early is lost.
    client.on('message', (topic, payload) => this.packets.next({ topic, payload }));
    client.on('packetreceive', () => (this.lastHeardAt = o.clock.now()));
    client.on('connect', () => void this.startSession(client));
    client.on('error', (err) => this.onError(err));
    client.on('close', () => this.onClose(client));
  }

  private onError(err: Error & { code?: unknown }): void {
    const refused = err.code === BAD_CREDENTIALS || err.code === NOT_AUTHORIZED;
    if (refused && !this.credentialRefused) {
      this.options.logger.error('the broker refuses this node\'s credential: retrying slowly (a joined node whose token was revoked or whose Node was deleted comes back by joining again with a new token)', {
        error: err.message,
        retryMs: this.credentialRetryMs(),
      });
    } else if (this.options.ca !== undefined && signedByAnotherCa(err)) {
      this.options.logger.error(
        "the broker's certificate is not signed by the CA this node trusts (the cloud's, kept when it joined): the cloud there has another CA (started with another data dir?); retrying. Start the cloud with its own data dir, or join this one again with a token of its own",
        { broker: this.options.brokerUrl, error: err.message },
      );
    } else if (!refused) this.options.logger.warn('mqtt error', { error: err.message });
    this.credentialRefused = refused;
  }

  private credentialRetryMs(): number {
    return this.options.reconnectMaxMs * CREDENTIAL_RETRY_FACTOR;
  }

  private async startSession(client: MqttClient): Promise<void> {
    try {
      await this.options.onSession(client);
    } catch (err) {
      this.options.logger.warn('session setup failed; reconnecting', { error: (err as Error).message });
      client.end(true);
      return;
    }
    if (this.client !== client || !client.connected) return;
    this.attempt = 0;
    this.credentialRefused = false;
    this.options.logger.info('connected', { broker: this.options.brokerUrl });
    this.setConnected(true);
  }

  private onClose(client: MqttClient): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end(true);
    if (this.state.value.connected) this.options.logger.warn('disconnected from broker');
    this.setConnected(false);
    if (this.stopped) return;
    const delay = this.credentialRefused
      ? this.credentialRetryMs()
      : reconnectDelay(this.attempt++, this.options.reconnectMinMs, this.options.reconnectMaxMs, this.options.random ?? Math.random);
    this.cancelRetry = this.options.clock.setTimer(delay, () => {
      this.cancelRetry = undefined;
      this.connect();
    });
  }

  private setConnected(connected: boolean): void {
    if (this.state.value.connected === connected || this.state.closed) return;
    this.state.next({ connected, since: this.options.clock.now() });
  }
}
