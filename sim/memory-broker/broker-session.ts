import { mayRetain, topicRights, type BrokerIdentity, type TopicRights } from '../../cloud/hub/acl.js';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { RetainedMessage, TransportMessage } from '../../shared/transport.js';
import { CONNACK, type ClientPacket } from './packets.js';
import { isValidTopicName } from './topic-filter.js';
import type { BrokerEnd } from './wire.js';

type ConnectPacket = Extract<ClientPacket, { cmd: 'connect' }>;

/** What a session asks of the broker it belongs to. */
export interface SessionHost {
  readonly clock: Clock;
  /** Who the client is, or the CONNACK return code refusing it. */
  admit(connect: ConnectPacket): Promise<BrokerIdentity | number>;
  /** Admitted: a session of the same client id already there is taken over. */
  register(session: BrokerSession): void;
  unregister(session: BrokerSession): void;
  /** `filters` were granted: what is published to them from now on reaches the session. */
  subscribed(session: BrokerSession, filters: readonly string[]): void;
  retainedMatching(filter: string): RetainedMessage[];
  publish(topic: string, payload: Buffer, retain: boolean): void;
  /** A publish or subscription the ACL refuses. */
  denied(action: 'publish' | 'retain' | 'subscribe', session: BrokerSession, topic: string): void;
  /** Past this many bytes waiting for the client, it is cut off. */
  maxQueuedBytes(who: BrokerIdentity): number;
  refused(reason: string, message: string, clientId: string): void;
}

/** aedes closes a client silent for 1.5 keepalives (and a millisecond). */
function brokerKeepaliveMs(keepaliveSeconds: number): number {
  return keepaliveSeconds * 1500 + 1;
}

/**
 * The broker's end of one connection, as aedes handles it: CONNECT first (later packets wait
 * for the admission), then subscriptions, QoS 1 publishes and pings. An unauthorized publish
 * closes the connection; an unauthorized subscription is refused in its SUBACK. When the
 * connection ends, the client's will is published (clients here never send DISCONNECT:
 * MqttTransport ends its sessions without one, a close too), unless the broker is stopping.
 */
export class BrokerSession {
  who: BrokerIdentity | undefined;
  /** What `who` may do with topics, worked out once at admission (as the embedded broker does). */
  private rights: TopicRights | undefined;
  clientId = '';
  private will: RetainedMessage | undefined;
  private state: 'new' | 'admitting' | 'admitted' | 'ended' = 'new';
  private waiting: ClientPacket[] = [];
  private keepaliveMs = 0;
  private cancelKeepalive: Cancel | undefined;
  /** Whether the will is left out when the session ends (the broker stopping). */
  private withoutWill = false;

  constructor(
    private readonly end: BrokerEnd,
    private readonly host: SessionHost,
  ) {
    end.listen({ packet: (p) => this.receive(p), closed: () => this.ended() });
  }

  get admitted(): boolean {
    return this.state === 'admitted';
  }

  private get over(): boolean {
    return this.state === 'ended';
  }

  /** Sends a message the client subscribed to; a node too far behind is cut off. */
  deliver(message: TransportMessage): void {
    if (!this.admitted || !this.who) return;
    this.sendMessage(message.topic, message.payload, message.retained);
    const limit = this.host.maxQueuedBytes(this.who);
    if (this.end.queuedBytes > limit) {
      this.host.refused('slow-client', `${this.end.queuedBytes} bytes queued for a client that does not read (limit ${limit})`, this.clientId);
      this.drop();
    }
  }

  /** The broker closes the connection: the will is published (a take-over, a client in error, a silent one). */
  drop(): void {
    this.end.close();
    this.ended();
  }

  /** The broker stops: the connection closes and no will is published. */
  shutdown(): void {
    this.withoutWill = true;
    this.drop();
  }

  private receive(packet: ClientPacket): void {
    if (this.state === 'ended') return;
    if (this.state === 'new') return packet.cmd === 'connect' ? void this.connect(packet) : this.drop();
    if (this.state === 'admitting') return void this.waiting.push(packet);
    this.restartKeepalive();
    this.handle(packet);
  }

  private async connect(packet: ConnectPacket): Promise<void> {
    this.state = 'admitting';
    const verdict = await this.host.admit(packet);
    if (this.over) return; // closed while its credential was checked
    if (typeof verdict === 'number') {
      this.end.send({ cmd: 'connack', returnCode: verdict });
      return this.drop();
    }
    this.who = verdict;
    this.rights = topicRights(verdict);
    this.clientId = packet.clientId;
    this.will = packet.will;
    this.keepaliveMs = brokerKeepaliveMs(packet.keepaliveSeconds);
    this.host.register(this);
    this.state = 'admitted';
    this.end.send({ cmd: 'connack', returnCode: CONNACK.accepted });
    this.restartKeepalive();
    for (const waiting of this.waiting.splice(0)) if (this.admitted) this.handle(waiting);
  }

  private handle(packet: ClientPacket): void {
    switch (packet.cmd) {
      case 'subscribe':
        return this.subscribe(packet.id, packet.filters);
      case 'publish':
        return this.publish(packet.id, packet.topic, packet.payload, packet.retain);
      case 'pingreq':
        return this.end.send({ cmd: 'pingresp' });
      case 'connect':
        return this.drop(); // a second CONNECT is a protocol error
    }
  }

  private subscribe(id: number, filters: readonly string[]): void {
    const rights = this.rights!;
    const granted = filters.map((filter) => rights.maySubscribe(filter));
    filters.forEach((filter, i) => {
      if (!granted[i]) this.host.denied('subscribe', this, filter);
    });
    this.end.send({ cmd: 'suback', id, granted });
    const allowed = filters.filter((_, i) => granted[i]);
    for (const filter of allowed) {
      for (const message of this.host.retainedMatching(filter)) this.sendMessage(message.topic, message.payload, true);
    }
    this.host.subscribed(this, allowed);
  }

  private publish(id: number, topic: string, payload: Buffer, retain: boolean): void {
    if (!isValidTopicName(topic)) return this.drop();
    if (!this.rights!.mayPublish(topic)) return this.deny('publish', topic);
    if (retain && !mayRetain(topic)) return this.deny('retain', topic);
    this.end.send({ cmd: 'puback', id });
    this.host.publish(topic, payload, retain);
  }

  /** As aedes: an unauthorized publish is an error, and the connection is closed. */
  private deny(action: 'publish' | 'retain', topic: string): void {
    this.host.denied(action, this, topic);
    this.drop();
  }

  /** Each subscriber gets a copy of its own, as from a socket. */
  private sendMessage(topic: string, payload: Buffer, retain: boolean): void {
    this.end.send({ cmd: 'publish', topic, payload: Buffer.from(payload), retain });
  }

  private restartKeepalive(): void {
    this.cancelKeepalive?.();
    this.cancelKeepalive = this.host.clock.setTimer(this.keepaliveMs, () => this.drop());
  }

  private ended(): void {
    if (this.state === 'ended') return;
    const admitted = this.admitted;
    this.state = 'ended';
    this.cancelKeepalive?.();
    this.host.unregister(this);
    const will = this.will;
    if (admitted && will && !this.withoutWill && this.rights!.mayPublish(will.topic) && mayRetain(will.topic)) this.host.publish(will.topic, will.payload, true);
  }
}
