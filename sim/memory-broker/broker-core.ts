import type { BrokerIdentity } from '../../cloud/hub/acl.js';
import type { Authenticate } from '../../cloud/hub/broker.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import type { RetainedMessage } from '../../shared/transport.js';
import { admit } from './admission.js';
import { BrokerSession, type SessionHost } from './broker-session.js';
import { Subscriptions } from './subscriptions.js';
import { matchesFilter } from './topic-filter.js';
import type { BrokerEnd } from './wire.js';

export interface BrokerCoreDeps {
  clock: Clock;
  authenticate: Authenticate;
  logger: Logger;
  nodesWaitForCloud: boolean;
  maxQueuedBytes: number;
}

/** The broker's state while it runs: sessions by client id, subscriptions, retained messages. */
export class BrokerCore implements SessionHost {
  readonly clock: Clock;
  /** Every connection's session, admitted or not. */
  private readonly live = new Set<BrokerSession>();
  private readonly byClientId = new Map<string, BrokerSession>();
  private readonly retained = new Map<string, Buffer>();
  /** Registered sessions' subscriptions. */
  private readonly subscriptions = new Subscriptions<BrokerSession>();
  /** Cloud sessions subscribed to every node's up topic. */
  private readonly listening = new Set<BrokerSession>();

  constructor(private readonly deps: BrokerCoreDeps) {
    this.clock = deps.clock;
  }

  accept(end: BrokerEnd): void {
    this.live.add(new BrokerSession(end, this));
  }

  /** Every connection closes without its will; retained messages are forgotten (the broker keeps them in memory only). */
  stopAll(): void {
    for (const session of [...this.live]) session.shutdown();
    this.retained.clear();
  }

  clientIds(): string[] {
    return [...this.byClientId.keys()];
  }

  retainedMessages(): RetainedMessage[] {
    return [...this.retained].map(([topic, payload]) => ({ topic, payload }));
  }

  admit(connect: Parameters<SessionHost['admit']>[0]): Promise<BrokerIdentity | number> {
    return admit({ authenticate: this.deps.authenticate, nodesMustWait: () => this.deps.nodesWaitForCloud && this.listening.size === 0, refused: (...args) => this.refused(...args) }, connect);
  }

  register(session: BrokerSession): void {
    const previous = this.byClientId.get(session.clientId);
    this.byClientId.set(session.clientId, session);
    previous?.drop(); // MQTT: a new connection with the same client id takes the session over
  }

  unregister(session: BrokerSession): void {
    this.live.delete(session);
    this.subscriptions.remove(session);
    if (this.byClientId.get(session.clientId) === session) this.byClientId.delete(session.clientId);
    if (!this.listening.delete(session) || this.listening.size > 0 || !this.deps.nodesWaitForCloud) return;
    this.deps.logger.warn('the cloud hub left; disconnecting every node');
    for (const other of [...this.byClientId.values()]) if (other.who?.role === 'node') other.drop();
  }

  subscribed(session: BrokerSession, filters: readonly string[]): void {
    if (this.byClientId.get(session.clientId) !== session) return; // taken over meanwhile
    for (const filter of filters) this.subscriptions.add(session, filter);
    if (session.who?.role === 'cloud' && filters.includes(topics.allUp)) this.listening.add(session);
  }

  retainedMatching(filter: string): RetainedMessage[] {
    return this.retainedMessages().filter((message) => matchesFilter(filter, message.topic));
  }

  publish(topic: string, payload: Buffer, retain: boolean): void {
    if (retain && payload.length === 0) this.retained.delete(topic);
    else if (retain) this.retained.set(topic, payload);
    // MQTT 3.1.1: a subscriber already there gets it as a live message, retain flag clear.
    for (const session of this.subscriptions.matching(topic)) session.deliver({ topic, payload, retained: false });
  }

  denied(action: 'publish' | 'retain' | 'subscribe', session: BrokerSession, topic: string): void {
    this.deps.logger.warn(`memory broker denied a ${action === 'retain' ? 'retained publish' : action}`, { clientId: session.clientId, topic });
  }

  maxQueuedBytes(who: BrokerIdentity): number {
    // As the embedded broker: nothing bounds what waits for the hub (GuardedConnection.admitAsCloud says why).
    return who.role === 'cloud' ? Number.POSITIVE_INFINITY : this.deps.maxQueuedBytes;
  }

  refused(reason: string, message: string, clientId: string): void {
    this.deps.logger.warn('memory broker refused a client', { reason, message, clientId });
  }
}
