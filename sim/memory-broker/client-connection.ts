import type { Cancel, Clock } from '../../shared/clock.js';
import type { RetainedMessage, TransportMessage } from '../../shared/transport.js';
import { ClientKeepalive } from './client-keepalive.js';
import { CONNACK, type BrokerPacket } from './packets.js';
import type { ClientEnd } from './wire.js';

export interface ClientConnectionOptions {
  clock: Clock;
  /** The keepalive as the wire carries it (whole seconds), in ms. */
  keepaliveMs: number;
  connectTimeoutMs: number;
}

export interface ClientConnectionEvents {
  message(message: TransportMessage): void;
  /** Any packet came from the broker. */
  heard(): void;
  /** The connection is over, whoever ended it, and why; once. */
  closed(reason: Error): void;
}

export interface ConnectRequest {
  clientId: string;
  username: string;
  password: string;
  will?: RetainedMessage;
}

interface Waiting {
  resolve(granted: readonly boolean[]): void;
  reject(err: Error): void;
}

/** The client's end of one connection, as mqtt.js runs it: CONNECT, then QoS 1 requests answered by id. */
export class ClientConnection {
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private acknowledged = false;
  private ended = false;
  private connack: Waiting | undefined;
  private cancelConnectTimeout: Cancel | undefined;
  private keepalive: ClientKeepalive | undefined;

  constructor(
    private readonly end: ClientEnd,
    private readonly options: ClientConnectionOptions,
    private readonly events: ClientConnectionEvents,
  ) {
    end.listen({ packet: (p) => this.receive(p), closed: () => this.finish(new Error('the connection to the broker closed')) });
  }

  /** The broker accepted the CONNECT and the connection is still up. */
  get connected(): boolean {
    return this.acknowledged && !this.ended;
  }

  /** Resolves on CONNACK 0; rejects on a refusal, on no answer in time, or when the connection ends first. */
  connect(request: ConnectRequest): Promise<void> {
    const { clock, keepaliveMs, connectTimeoutMs } = this.options;
    return new Promise<void>((resolve, reject) => {
      this.connack = { resolve: () => resolve(), reject };
      this.cancelConnectTimeout = clock.setTimer(connectTimeoutMs, () => this.drop(new Error('no answer to CONNECT in time')));
      this.end.send({ cmd: 'connect', ...request, keepaliveSeconds: keepaliveMs / 1000 });
    });
  }

  /** Resolves once every filter is granted; rejects if the broker refuses any of them. */
  async subscribe(filters: readonly string[]): Promise<void> {
    const granted = await this.request((id) => ({ cmd: 'subscribe', id, filters }));
    const refused = filters.filter((_, i) => !granted[i]);
    if (refused.length > 0) throw new Error(`Subscribe error: the broker refused ${refused.join(', ')}`);
  }

  /** QoS 1: resolves on the broker's PUBACK. */
  async publish(topic: string, payload: Buffer, retain: boolean): Promise<void> {
    if (!this.connected) throw new Error('not connected');
    const copy = Buffer.from(payload); // what the caller does with its buffer afterwards is not what it sent
    await this.request((id) => ({ cmd: 'publish', id, topic, payload: copy, retain }));
  }

  /** Closes the connection without DISCONNECT (as mqtt.js' end(true)): the broker publishes the will. */
  drop(reason: Error): void {
    this.end.close();
    this.finish(reason);
  }

  private request(packet: (id: number) => Parameters<ClientEnd['send']>[0]): Promise<readonly boolean[]> {
    if (this.ended) return Promise.reject(new Error('not connected'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.end.send(packet(id));
    });
  }

  private receive(packet: BrokerPacket): void {
    if (this.ended) return;
    this.events.heard();
    switch (packet.cmd) {
      case 'connack':
        return this.connacked(packet.returnCode);
      case 'publish':
        return this.events.message({ topic: packet.topic, payload: packet.payload, retained: packet.retain });
      case 'pingresp':
        return this.keepalive?.answered();
      case 'suback':
        return this.answered(packet.id, packet.granted);
      case 'puback':
        return this.answered(packet.id, []);
    }
  }

  private connacked(returnCode: number): void {
    this.cancelConnectTimeout?.();
    // As mqtt.js' error: the return code as `code` (shared/mqtt-refusals.ts reads it).
    if (returnCode !== CONNACK.accepted) return this.drop(Object.assign(new Error(`Connection refused: CONNACK ${returnCode}`), { code: returnCode }));
    this.acknowledged = true;
    const { clock, keepaliveMs } = this.options;
    this.keepalive = new ClientKeepalive(clock, keepaliveMs, () => this.end.send({ cmd: 'pingreq' }), () => this.drop(new Error('Keepalive timeout')));
    this.connack?.resolve([]);
  }

  private answered(id: number, granted: readonly boolean[]): void {
    this.keepalive?.answered();
    this.waiting.get(id)?.resolve(granted);
    this.waiting.delete(id);
  }

  private finish(reason: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.cancelConnectTimeout?.();
    this.keepalive?.stop();
    this.connack?.reject(reason);
    for (const waiting of this.waiting.values()) waiting.reject(reason);
    this.waiting.clear();
    this.events.closed(reason);
  }
}
