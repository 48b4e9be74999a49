import { randomUUID } from 'node:crypto';
import { cloudClientId, CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import type { FakeClock } from '../../shared/clock.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { defaultTiming, type Timing } from '../../shared/timing.js';
import type { Transport, TransportFactory, TransportIdentity } from '../../shared/transport.js';
import { MemoryBroker } from '../../sim/memory-broker.js';

export const CLOUD_PASSWORD = 'cloud-secret';
/** Every node's password on this broker. */
export const NODE_PASSWORD = 'node-secret';

export interface MemorySyncOptions {
  clock: FakeClock;
  /** The clients' keepalive and reconnect backoff (default: defaultTiming's). */
  timing?: Timing;
  /** The broker's logger (its refusals and denials). */
  logger?: Logger;
  nodesWaitForCloud?: boolean;
}

/**
 * TEST HELPER. A MemoryBroker on a FakeClock that admits the cloud (`cloud-secret`) and any node
 * (`node-secret`), and the clients made through it, closed with the broker by `close()`.
 */
export class MemorySync {
  readonly broker: MemoryBroker;
  readonly clock: FakeClock;
  private readonly timing: Timing;
  private readonly made: Transport[] = [];

  constructor(options: MemorySyncOptions) {
    this.clock = options.clock;
    this.timing = options.timing ?? defaultTiming;
    this.broker = new MemoryBroker({
      clock: options.clock,
      authenticate: (username, password) => password === (username === CLOUD_USERNAME ? CLOUD_PASSWORD : NODE_PASSWORD),
      logger: options.logger ?? silentLogger,
      nodesWaitForCloud: options.nodesWaitForCloud ?? false,
    });
  }

  /** A client (not started) as `identity`, with a fixed jitter. */
  readonly transport: TransportFactory = (identity: TransportIdentity): Transport => {
    const transport = memoryClient(this.broker, this.clock, identity, { timing: this.timing });
    this.made.push(transport);
    return transport;
  };

  /** What startCloudHub needs to reach this broker as the cloud. */
  cloudLink(): { transport: Transport; epoch: string } {
    return memoryCloudLink(this.broker, this.clock, { timing: this.timing });
  }

  /** A node's client (not started): its client id and user name are its name. */
  node(node: string, password = NODE_PASSWORD): Transport {
    return this.transport({ clientId: node, username: node, password });
  }

  async close(): Promise<void> {
    await Promise.all(this.made.splice(0).map((t) => t.close()));
    this.broker.stop();
  }
}

interface ClientOptions {
  /** Keepalive and reconnect backoff (default: defaultTiming's). */
  timing?: Timing;
  logger?: Logger;
}

/** TEST HELPER. A client (not started) of `broker` as `identity`, timed by `timing`, with a fixed jitter. */
export function memoryClient(broker: MemoryBroker, clock: FakeClock, identity: TransportIdentity, options: ClientOptions = {}): Transport {
  const t = options.timing ?? defaultTiming;
  return broker.connect({
    ...identity,
    keepaliveMs: t.keepaliveMs,
    connectTimeoutMs: Math.max(1000, t.connectTimeoutMs),
    reconnectMinMs: t.reconnectMinMs,
    reconnectMaxMs: t.reconnectMaxMs,
    clock,
    random: () => 0.5,
    logger: options.logger ?? silentLogger,
  });
}

/** TEST HELPER. What startCloudHub needs to reach `broker` as the cloud (password CLOUD_PASSWORD unless given). */
export function memoryCloudLink(broker: MemoryBroker, clock: FakeClock, options: ClientOptions & { password?: string } = {}): { transport: Transport; epoch: string } {
  const epoch = randomUUID().slice(0, 8);
  const identity = { clientId: cloudClientId(epoch), username: CLOUD_USERNAME, password: options.password ?? CLOUD_PASSWORD };
  return { transport: memoryClient(broker, clock, identity, options), epoch };
}
