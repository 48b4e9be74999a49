import { createRequire } from 'node:module';

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
}

const MemoryPersistence = createRequire(import.meta.url)('aedes-persistence/asyncPersistence.js') as new () => MemoryStore;

const NO_SUBSCRIPTIONS: Promise<readonly Subscription[]> = Promise.resolve(Object.freeze([]));
const DONE: Promise<void> = Promise.resolve();
const NOTHING_QUEUED: Promise<undefined> = Promise.resolve(undefined);

/**
 * aedes' in-memory persistence (aedes-persistence 11), without its work per message while no
 * session outlives its connection, as kedge's never do (shared/transport.ts): aedes matches
 * every QoS 1 message against the subscriptions of persistent sessions, to queue it for each
 * of them, and looks for the packet of every PUBACK among those queued for the client. Until a
 * client keeps a QoS 1 subscription in a persistent session (CONNECT with clean false), the
 * first answer is "none"; until a packet is queued, so is the second: both are given without
 * looking. From then on every call goes to the store, so the semantics are the store's.
 */
export class BrokerPersistence extends MemoryPersistence {
  private persistentSubscriptions = false;
  private queued = false;

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
