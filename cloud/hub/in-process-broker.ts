import type { Clock } from '../../shared/clock.js';
import type { TransportFactory } from '../../shared/transport.js';
import type { BrokerOptions } from './broker.js';

/** What the cloud asks of every broker it runs: who may connect, and nodes wait for its hub (as BrokerOptions says). */
export type BrokerAccess = Pick<BrokerOptions, 'authenticate' | 'nodesWaitForCloud' | 'logger'> & { clock: Clock };

/**
 * A broker in the cloud's own process that the cloud does not build itself (sim's in-memory
 * one): no port, no socket. It is the cloud's `broker` component, as the embedded broker is.
 */
export interface InProcessBroker {
  /** Names it in logs and status (e.g. `memory://kedge`); nothing dials it. */
  readonly url: string;
  /** The hub's client of it. */
  readonly transport: TransportFactory;
  /** As the embedded broker going down: every client drops, retained messages are forgotten. */
  stop(): void | Promise<void>;
  /** Takes clients again; they come back by their own backoff. */
  start(): void | Promise<void>;
}

/** Makes the cloud's in-process broker once it knows who may connect (CloudOptions.inProcessBroker). */
export type InProcessBrokerMaker = (access: BrokerAccess) => InProcessBroker;
