import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import { reconnectDelay } from '../../shared/backoff.js';
import type { Cancel, Clock } from '../../shared/clock.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { credentialRefused, credentialRetryMs, plainRefusalMessages } from '../../shared/mqtt-refusals.js';
import { keepaliveSeconds } from '../../shared/timing.js';
import type { Connectivity, RetainedMessage, SessionOps, SessionSpec, Transport, TransportMessage } from '../../shared/transport.js';
import { ClientConnection } from './client-connection.js';
import type { ClientEnd } from './wire.js';

export interface MemoryClientOptions {
  clientId: string;
  username: string;
  password: string;
  keepaliveMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** How long one attempt waits for the broker's answer (default 30 s, mqtt.js'). */
  connectTimeoutMs?: number;
  clock: Clock;
  random: () => number;
  logger?: Logger;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * A Transport to a MemoryBroker, as MqttTransport is to a real one: one connection at a time,
 * opened again after each loss with capped exponential backoff and jitter on its Clock (a
 * refused credential slowly), each session subscribing and running `onSession` before it
 * counts as connected; close publishes the farewell and drops the connection without
 * DISCONNECT, so the broker publishes the will after it. `dial` opens a connection over the client's link.
 */
export class MemoryTransport implements Transport {
  private readonly state: BehaviorSubject<Connectivity>;
  private readonly messages = new Subject<TransportMessage>();
  private readonly logger: Logger;
  private spec: SessionSpec | undefined;
  private connection: ClientConnection | undefined;
  private attempt = 0;
  private cancelRetry: Cancel | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private heardAt: number | undefined;
  /** The broker said our credential is bad (CONNACK 4 or 5): retried, but slowly. */
  private refused = false;

  constructor(
    private readonly options: MemoryClientOptions,
    private readonly dial: () => ClientEnd,
  ) {
    this.state = new BehaviorSubject<Connectivity>({ connected: false, since: options.clock.now() });
    this.logger = options.logger ?? silentLogger;
  }

  get connectivity$(): Observable<Connectivity> {
    return this.state.asObservable();
  }

  get connectivity(): Connectivity {
    return this.state.value;
  }

  get inbound$(): Observable<TransportMessage> {
    return this.messages.asObservable();
  }

  get lastHeard(): number | undefined {
    return this.heardAt;
  }

  start(spec: SessionSpec): void {
    if (this.spec) throw new Error('a transport starts once');
    this.spec = spec;
    this.open();
  }

  publish(topic: string, payload: Buffer): Promise<void> {
    return this.send(topic, payload, false);
  }

  retain(message: RetainedMessage): Promise<void> {
    return this.send(message.topic, message.payload, true);
  }

  close(farewell?: RetainedMessage): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = this.shutdown(farewell);
    }
    return this.closing;
  }

  private send(topic: string, payload: Buffer, retain: boolean): Promise<void> {
    const connection = this.connection;
    if (!connection?.connected || this.closed) return Promise.reject(new Error('not connected'));
    return connection.publish(topic, payload, retain);
  }

  private async shutdown(farewell: RetainedMessage | undefined): Promise<void> {
    this.cancelRetry?.();
    const connection = this.connection;
    // As MqttTransport: the farewell goes out unacknowledged, then the connection ends without DISCONNECT.
    if (connection?.connected && farewell) connection.publish(farewell.topic, farewell.payload, true).catch(() => undefined);
    connection?.drop(new Error('closed'));
    this.setConnected(false);
    this.messages.complete();
    this.state.complete();
  }

  private open(): void {
    if (this.closed) return;
    const o = this.options;
    const connection = new ClientConnection(
      this.dial(),
      { clock: o.clock, keepaliveMs: keepaliveSeconds(o.keepaliveMs) * 1000, connectTimeoutMs: o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS },
      {
        message: (message) => this.connection === connection && this.messages.next(message),
        heard: () => (this.heardAt = o.clock.now()),
        closed: (reason) => this.lost(connection, reason),
      },
    );
    this.connection = connection;
    void this.runSession(connection, this.spec!);
  }

  private async runSession(connection: ClientConnection, spec: SessionSpec): Promise<void> {
    const o = this.options;
    let connected = false;
    try {
      await connection.connect({ clientId: o.clientId, username: o.username, password: o.password, will: spec.will });
      connected = true;
      if (spec.subscriptions.length > 0) await connection.subscribe(spec.subscriptions);
      await spec.onSession?.(sessionOps(connection));
    } catch (err) {
      if (this.closed) return;
      const error = (err as Error).message;
      if (!credentialRefused(err as Error)) this.logger.warn(connected ? 'session setup failed; reconnecting' : 'could not connect to the broker; retrying', { error });
      connection.drop(err as Error);
      return;
    }
    if (this.connection !== connection || !connection.connected || this.closed) return;
    this.attempt = 0;
    this.refused = false;
    this.setConnected(true);
  }

  private lost(connection: ClientConnection, reason: Error): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    if (this.state.value.connected) this.logger.warn('disconnected from the broker');
    this.setConnected(false);
    if (this.closed) return;
    const o = this.options;
    const refused = credentialRefused(reason);
    if (refused && !this.refused) this.logger.error(plainRefusalMessages.credential, { error: reason.message, retryMs: credentialRetryMs(o.reconnectMaxMs) });
    this.refused = refused;
    const delay = refused ? credentialRetryMs(o.reconnectMaxMs) : reconnectDelay(this.attempt++, o.reconnectMinMs, o.reconnectMaxMs, o.random);
    this.cancelRetry = o.clock.setTimer(delay, () => {
      this.cancelRetry = undefined;
      this.open();
    });
  }

  private setConnected(connected: boolean): void {
    if (this.state.value.connected === connected || this.state.closed) return;
    this.state.next({ connected, since: this.options.clock.now() });
  }
}

function sessionOps(connection: ClientConnection): SessionOps {
  return {
    publish: (topic, payload) => connection.publish(topic, payload, false),
    retain: (message) => connection.publish(message.topic, message.payload, true),
  };
}
