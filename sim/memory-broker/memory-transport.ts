import type { Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { credentialRefused, plainRefusalMessages } from '../../shared/mqtt-refusals.js';
import { keepaliveSeconds } from '../../shared/timing.js';
import type { Connectivity, ReconnectTiming, RetainedMessage, SessionOps, SessionSpec, Transport, TransportIdentity, TransportMessage } from '../../shared/transport.js';
import { TransportSession } from '../../shared/transport-session.js';
import { ClientConnection } from './client-connection.js';
import type { ClientEnd } from './wire.js';

export interface MemoryClientOptions extends TransportIdentity, ReconnectTiming {
  /** How long one attempt waits for the broker's answer (default 30 s, mqtt.js'). */
  connectTimeoutMs?: number;
  clock: Clock;
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
  private readonly session: TransportSession;
  private readonly logger: Logger;
  private connection: ClientConnection | undefined;

  constructor(
    private readonly options: MemoryClientOptions,
    private readonly dial: () => ClientEnd,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.session = new TransportSession({ ...options, logger: this.logger, credentialRefusedMessage: plainRefusalMessages.credential }, () => this.open());
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

  publish(topic: string, payload: Buffer): Promise<void> {
    return this.send(topic, payload, false);
  }

  retain(message: RetainedMessage): Promise<void> {
    return this.send(message.topic, message.payload, true);
  }

  close(farewell?: RetainedMessage): Promise<void> {
    return this.session.close(() => this.disconnect(farewell));
  }

  private send(topic: string, payload: Buffer, retain: boolean): Promise<void> {
    const connection = this.connection;
    if (!connection?.connected || this.session.closed) return Promise.reject(new Error('not connected'));
    return connection.publish(topic, payload, retain);
  }

  /** As MqttTransport: the farewell goes out unacknowledged, then the connection ends without DISCONNECT. */
  private disconnect(farewell: RetainedMessage | undefined): void {
    const connection = this.connection;
    if (connection?.connected && farewell) connection.publish(farewell.topic, farewell.payload, true).catch(() => undefined);
    connection?.drop(new Error('closed'));
  }

  private open(): void {
    const o = this.options;
    const connection = new ClientConnection(
      this.dial(),
      { clock: o.clock, keepaliveMs: keepaliveSeconds(o.keepaliveMs) * 1000, connectTimeoutMs: o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS },
      {
        message: (message) => this.connection === connection && this.session.deliver(message),
        heard: () => this.session.heard(),
        closed: (reason) => this.lost(connection, reason),
      },
    );
    this.connection = connection;
    void this.runSession(connection, this.session.spec);
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
      if (this.session.closed) return;
      const error = (err as Error).message;
      if (!credentialRefused(err as Error)) this.logger.warn(connected ? 'session setup failed; reconnecting' : 'could not connect to the broker; retrying', { error });
      connection.drop(err as Error);
      return;
    }
    if (this.connection !== connection || !connection.connected || this.session.closed) return;
    this.session.established();
  }

  private lost(connection: ClientConnection, reason: Error): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    if (this.session.connectivity.connected) this.logger.warn('disconnected from the broker');
    if (!this.session.closed) this.session.failed(reason);
    this.session.lost();
  }
}

function sessionOps(connection: ClientConnection): SessionOps {
  return {
    publish: (topic, payload) => connection.publish(topic, payload, false),
    retain: (message) => connection.publish(message.topic, message.payload, true),
  };
}
