import { createRequire } from 'node:module';
import { Readable } from 'node:stream';

/** A retained PUBLISH as aedes stores it. */
interface RetainedPacket {
  topic: string;
  payload: Buffer;
}

interface Subscription {
  topic: string;
  qos: number;
}

/** The part of aedes-persistence's in-memory store (asyncPersistence.js, which the package types only as its default export) used here. */
interface MemoryStore {
  setup(broker: unknown): Promise<void>;
  addSubscriptions(client: { id: string }, subs: Subscription[]): Promise<void>;
  subscriptionsByTopic(topic: string): Promise<readonly Subscription[]>;
  outgoingEnqueue(sub: { clientId: string }, packet: unknown): Promise<void>;
  outgoingEnqueueCombi(subs: readonly { clientId: string }[], packet: unknown): Promise<void>;
  outgoingClearMessageId(client: { id: string }, packet: unknown): Promise<unknown>;
  storeRetained(packet: RetainedPacket): Promise<void>;
  createRetainedStreamCombi(patterns: string[]): Readable;
}

const MemoryPersistence = createRequire(import.meta.url)('aedes-persistence/asyncPersistence.js') as new () => MemoryStore;

const NO_SUBSCRIPTIONS: Promise<readonly Subscription[]> = Promise.resolve(Object.freeze([]));
const DONE: Promise<void> = Promise.resolve();
const NOTHING_QUEUED: Promise<undefined> = Promise.resolve(undefined);
const isExact = (pattern: string): boolean => !pattern.includes('+') && !pattern.includes('#');

/**
 * aedes' in-memory persistence (aedes-persistence 11), without its work per message while no
 * session outlives its connection, as kedge's never do (shared/transport.ts): aedes matches
 * every QoS 1 message against the subscriptions of persistent sessions, to queue it for each
 * of them, and looks for the packet of every PUBACK among those queued for the client. Until a
 * client keeps a QoS 1 subscription in a persistent session (CONNECT with clean false), the
 * first answer is "none"; until a packet is queued, so is the second: both are given without
 * looking. From then on every call goes to the store, so the semantics are the store's.
 *
 * Its retained messages are also indexed by topic. aedes looks them up on every SUBSCRIBE, and
 * the store tests each against the pattern: with one retained presence per node, 1,000 edges
 * reconnecting at once cost a million topic matches (15% of the cloud's CPU in a reconnect
 * storm). An edge subscribes to exact topics only, so its lookup is one read of the index; a
 * wildcard (the hub's, once per connection) still goes to the store's scan.
 */
export class BrokerPersistence extends MemoryPersistence {
  private persistentSubscriptions = false;
  private queued = false;
  private readonly retained = new Map<string, RetainedPacket>();

  override storeRetained(packet: RetainedPacket): Promise<void> {
    // As the store does: an empty payload removes the topic's retained message.
    if (packet.payload.length === 0) this.retained.delete(packet.topic);
    else this.retained.set(packet.topic, { ...packet });
    return super.storeRetained(packet);
  }

  override createRetainedStreamCombi(patterns: string[]): Readable {
    if (!patterns.every(isExact)) return super.createRetainedStreamCombi(patterns);
    return Readable.from(patterns.flatMap((topic) => this.retained.get(topic) ?? []));
  }

  override addSubscriptions(client: { id: string }, subs: Subscription[]): Promise<void> {
    if (subs.some((sub) => sub.qos > 0)) this.persistentSubscriptions = true;
    return super.addSubscriptions(client, subs);
  }

  override subscriptionsByTopic(topic: string): Promise<readonly Subscription[]> {
    return this.persistentSubscriptions ? super.subscriptionsByTopic(topic) : NO_SUBSCRIPTIONS;
  }

  override outgoingEnqueue(sub: { clientId: string }, packet: unknown): Promise<void> {
    this.queued = true;
    return super.outgoingEnqueue(sub, packet);
  }

  override outgoingEnqueueCombi(subs: readonly { clientId: string }[], packet: unknown): Promise<void> {
    if (subs.length === 0) return DONE;
    this.queued = true;
    return super.outgoingEnqueueCombi(subs, packet);
  }

  override outgoingClearMessageId(client: { id: string }, packet: unknown): Promise<unknown> {
    return this.queued ? super.outgoingClearMessageId(client, packet) : NOTHING_QUEUED;
  }
}
