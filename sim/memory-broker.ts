import { DEFAULT_LIMITS, type Authenticate } from '../cloud/hub/broker.js';
import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import type { RetainedMessage, Transport } from '../shared/transport.js';
import { BrokerCore } from './memory-broker/broker-core.js';
import { Links } from './memory-broker/links.js';
import { MemoryTransport, type MemoryClientOptions } from './memory-broker/memory-transport.js';
import type { ClientEnd } from './memory-broker/wire.js';

export type { MemoryClientOptions } from './memory-broker/memory-transport.js';

export interface MemoryBrokerOptions {
  /** For keepalives: a client silent for 1.5 keepalives is closed and its will published. */
  clock: Clock;
  /** As the embedded broker's: the same credentials, roles and ACL. */
  authenticate: Authenticate;
  logger?: Logger;
  /** As BrokerOptions.nodesWaitForCloud: nodes are refused while no cloud client listens to every node's up topic. */
  nodesWaitForCloud?: boolean;
  /** Bytes that may wait for one node (held while its link is cut) before it is cut off (default: the embedded broker's). */
  maxQueuedBytes?: number;
}

/**
 * An MQTT 3.1.1 broker in this process, for tests and in-process clusters: the embedded
 * broker's admission and topic ACLs, QoS 1, retained messages, last wills and clean
 * sessions, with no socket and no timer but the Clock's. Every client's cable (by client id)
 * can be cut, healed and reset as sim/link-proxy.ts does to a real one.
 */
export class MemoryBroker {
  private readonly links = new Links();
  private readonly core: BrokerCore;
  private running = true;

  constructor(options: MemoryBrokerOptions) {
    this.core = new BrokerCore({
      clock: options.clock,
      authenticate: options.authenticate,
      logger: options.logger ?? silentLogger,
      nodesWaitForCloud: options.nodesWaitForCloud ?? false,
      maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_LIMITS.maxQueuedBytes,
    });
  }

  /** A client of this broker (not started): it connects over its own cable, named by its client id. */
  connect(client: MemoryClientOptions): Transport {
    return new MemoryTransport(client, () => this.dial(client.clientId));
  }

  /** Pulls `name`'s cable: nothing passes either way, and neither end is told. */
  cut(name: string): void {
    this.links.cut(name);
  }

  /** Plugs it back in: held packets arrive; a connection that lost an end meanwhile is reset. */
  heal(name: string): void {
    this.links.heal(name);
  }

  /** Resets every connection over `name`'s cable at once (an RST to both ends); the cable stays as it is. */
  reset(name: string): void {
    this.links.reset(name);
  }

  isCut(name: string): boolean {
    return this.links.isCut(name);
  }

  /** As the embedded broker going down: every client drops (without its will) and retained messages are forgotten. */
  stop(): void {
    this.running = false;
    this.core.stopAll();
  }

  /** Accepts connections again; clients come back by their own backoff. */
  start(): void {
    this.running = true;
  }

  restart(): void {
    this.stop();
    this.start();
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Client ids with an admitted session. */
  clientIds(): string[] {
    return this.core.clientIds();
  }

  /** Connections over `name`'s cable that are open at either end (held ones during a cut included). */
  connections(name: string): number {
    return this.links.connections(name);
  }

  retainedMessages(): RetainedMessage[] {
    return this.core.retainedMessages();
  }

  private dial(name: string): ClientEnd {
    const wire = this.links.open(name, !this.running);
    if (wire.broker.open) this.core.accept(wire.broker);
    return wire.client;
  }
}
