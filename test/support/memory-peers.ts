import { CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import type { FakeClock } from '../../shared/clock.js';
import { decodeDown, decodePresence, decodeUp, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownDraft, type DownMessage, type ObjectRef, type Presence, type UpDraft, type UpMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import type { SessionSpec, Transport } from '../../shared/transport.js';
import { CLOUD_PASSWORD, type MemorySync } from './memory-sync.js';
import { runUntil } from './settle.js';

/** What a peer double records, and how a test waits for it: on fake time only. */
abstract class PeerDouble<In> {
  readonly received: In[] = [];

  protected constructor(
    readonly transport: Transport,
    protected readonly clock: FakeClock,
  ) {}

  /** Starts the transport and waits (on fake time) for its first session. */
  protected async start(spec: SessionSpec): Promise<void> {
    this.transport.start(spec);
    await runUntil(this.clock, () => this.transport.connectivity.connected, 'the test double connected');
  }

  /** Publishes `payload` as it is, QoS 1. */
  publish(topic: string, payload: Buffer | string): Promise<void> {
    return this.transport.publish(topic, Buffer.from(payload));
  }

  /** Lets fake time pass (in small steps) until `count` received messages match; returns them. */
  expect<T extends In = In>(match: (m: In) => boolean, count = 1, what = 'messages'): Promise<T[]> {
    return runUntil(this.clock, () => {
      const found = this.received.filter(match);
      return found.length >= count && (found as T[]);
    }, what);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/**
 * TEST DOUBLE. A client of a MemoryBroker playing an edge node: it records every down message
 * and publishes whatever the test tells it to, with no protocol logic of its own.
 */
export class NodeDouble extends PeerDouble<DownMessage> {
  readonly stamper: EnvelopeStamper;
  /** Bytes on the wire of each message received, by id (a compressed payload's, compressed). */
  readonly wireBytes = new Map<string, number>();

  private constructor(
    readonly node: string,
    transport: Transport,
    clock: FakeClock,
    epoch: string,
  ) {
    super(transport, clock);
    this.stamper = new EnvelopeStamper(node, epoch);
    transport.inbound$.subscribe(({ payload }) => {
      const decoded = decodeDown(payload);
      if (!decoded.ok) return;
      this.received.push(decoded.message);
      this.wireBytes.set(decoded.message.id, payload.length);
    });
  }

  /** Connects as `node` (its will: presence offline, retained) and subscribes to its down topic. */
  static async connect(sync: MemorySync, node: string, epoch = `${node}-e1`, password?: string): Promise<NodeDouble> {
    const edge = new NodeDouble(node, sync.node(node, password), sync.clock, epoch);
    await edge.start({ subscriptions: [topics.down(node)], will: { topic: topics.presence(node), payload: encode({ online: false, epoch }) } });
    return edge;
  }

  get epoch(): string {
    return this.stamper.epoch;
  }

  async send(draft: UpDraft): Promise<UpMessage> {
    const message = this.stamper.stamp(draft) as UpMessage;
    await this.publish(topics.up(this.node), encode(message));
    return message;
  }

  /** Says hello holding `holds` and waits (on fake time) for its `synced`; returns that. */
  async hello(holds: ObjectRef[] = [], bootId = 'b'): Promise<DownMessage> {
    const h = await this.send({ type: 'hello', body: { bootId, holds } });
    const [synced] = await this.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced');
    return synced!;
  }

  presence(online: boolean): Promise<void> {
    return this.transport.retain({ topic: topics.presence(this.node), payload: encode({ online, epoch: this.epoch }) });
  }
}

/**
 * TEST DOUBLE. A client of a MemoryBroker playing the cloud for one node: it records every up
 * message and presence payload, and publishes whatever the test tells it to.
 */
export class CloudDouble extends PeerDouble<UpMessage> {
  readonly presences: Presence[] = [];
  /** Ids of the messages that came in the compressed form. */
  readonly compressed = new Set<string>();
  readonly stamper = new EnvelopeStamper('cloud', 'cloud-e1');

  private constructor(
    readonly node: string,
    transport: Transport,
    clock: FakeClock,
  ) {
    super(transport, clock);
    transport.inbound$.subscribe(({ topic, payload }) => {
      if (topic === topics.up(node)) {
        const decoded = decodeUp(payload);
        if (!decoded.ok) return;
        this.received.push(decoded.message);
        if (payload[0] === 0) this.compressed.add(decoded.message.id);
      } else if (topic === topics.presence(node)) {
        const decoded = decodePresence(payload);
        if (decoded.ok) this.presences.push(decoded.message);
      }
    });
  }

  /** Connects as the cloud and subscribes to `node`'s up and presence topics. */
  static async connect(sync: MemorySync, node: string, clientId = `${CLOUD_USERNAME}-double`): Promise<CloudDouble> {
    const cloud = new CloudDouble(node, sync.transport({ clientId, username: CLOUD_USERNAME, password: CLOUD_PASSWORD }), sync.clock);
    await cloud.start({ subscriptions: [topics.up(node), topics.presence(node)] });
    return cloud;
  }

  async send(draft: DownDraft): Promise<DownMessage> {
    const message = this.stamper.stamp(draft) as DownMessage;
    await this.sendRaw(encode(message));
    return message;
  }

  sendRaw(payload: Buffer | string): Promise<void> {
    return this.publish(topics.down(this.node), payload);
  }
}
