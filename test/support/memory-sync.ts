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
    const t = this.timing;
    const transport = this.broker.connect({
      ...identity,
      keepaliveMs: t.keepaliveMs,
      connectTimeoutMs: Math.max(1000, t.connectTimeoutMs),
      reconnectMinMs: t.reconnectMinMs,
      reconnectMaxMs: t.reconnectMaxMs,
      clock: this.clock,
      random: () => 0.5,
    });
    this.made.push(transport);
    return transport;
  };

  /** What startCloudHub needs to reach this broker as the cloud. */
  cloudLink(): { transport: Transport; epoch: string } {
    const epoch = randomUUID().slice(0, 8);
    return { transport: this.transport({ clientId: cloudClientId(epoch), username: CLOUD_USERNAME, password: CLOUD_PASSWORD }), epoch };
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
