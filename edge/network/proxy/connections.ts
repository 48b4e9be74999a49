import type { Socket } from 'node:net';
import type { Cancel, Clock } from '../../../shared/clock.js';
import type { Counters } from '../../../shared/counters.js';
import type { Logger } from '../../../shared/log.js';
import { LogSampler, unloggedFields } from '../../../shared/log-sampler.js';
import type { Balancer } from './balancer.js';
import { PROXY_COUNTERS as C } from './proxy-counters.js';
import { dialEndpoint, relay, type Dial } from './tcp-relay.js';

interface Connection {
  service: string;
  client: Socket;
  backend?: Socket;
  lastActive: number;
}

export interface ConnectionsDeps {
  clock: Clock;
  dial: Dial;
  counters: Counters;
  logger: Logger;
  /** A connection that passes no byte either way for this long is closed. */
  idleTimeoutMs: number;
}

/**
 * Every connection the data plane relays: each accepted one is dialled through to an endpoint
 * of its Service port and relayed; one idle for `idleTimeoutMs` is closed (a sweep a quarter
 * of that often, from the first connection on), and closing the data plane closes them all.
 */
export class Connections {
  private readonly open = new Set<Connection>();
  private readonly sampler: LogSampler;
  private cancelSweep: Cancel | undefined;
  private closed = false;

  constructor(private readonly deps: ConnectionsDeps) {
    this.sampler = new LogSampler(deps.clock);
  }

  count(): number {
    return this.open.size;
  }

  /** A connection accepted for Service port `service`: to an endpoint `balancer` picks, or closed when none answers. */
  async accept(service: string, balancer: Balancer, client: Socket): Promise<void> {
    const { clock, counters } = this.deps;
    const conn: Connection = { service, client, lastActive: clock.now() };
    if (this.closed) return void client.destroy();
    this.open.add(conn);
    this.cancelSweep ??= clock.setRepeating(Math.max(1, Math.floor(this.deps.idleTimeoutMs / 4)), () => this.closeIdle());
    counters.add(C.connections, { service });
    client.on('error', () => client.destroy());
    client.once('close', () => {
      this.forgetOnceClosed(conn);
      counters.add(C.bytesIn, { service }, client.bytesRead);
    });
    const outcome = await dialEndpoint(balancer, client.remoteAddress ?? '', this.deps.dial, clock);
    for (const endpoint of outcome.failed) this.dialFailed(service, endpoint);
    const { backend } = outcome;
    if (!backend) {
      counters.add(outcome.noEndpoints ? C.noEndpoint : C.allDialsFailed, { service });
      client.destroy();
      return;
    }
    backend.once('close', () => {
      this.forgetOnceClosed(conn);
      counters.add(C.bytesOut, { service }, backend.bytesRead);
    });
    if (client.destroyed) return void backend.destroy();
    conn.backend = backend;
    relay(client, backend, () => (conn.lastActive = clock.now()));
  }

  /** Closes every connection at once (the edge stops). */
  close(): void {
    this.closed = true;
    this.cancelSweep?.();
    for (const conn of this.open) this.destroy(conn);
  }

  /** A pair is tracked (idle sweep, close) until both sockets closed: a backend that does not read may outlive its client. */
  private forgetOnceClosed(conn: Connection): void {
    if (conn.client.destroyed && (conn.backend?.destroyed ?? true)) this.open.delete(conn);
  }

  private dialFailed(service: string, endpoint: string): void {
    this.deps.counters.add(C.dialFailures, { service });
    const unlogged = this.sampler.sample(service);
    if (unlogged !== undefined) this.deps.logger.warn('dial to an endpoint failed; trying the next one', { service, endpoint, ...unloggedFields(unlogged) });
  }

  private closeIdle(): void {
    const now = this.deps.clock.now();
    for (const conn of this.open) {
      if (now - conn.lastActive < this.deps.idleTimeoutMs) continue;
      this.deps.counters.add(C.idleClosed, { service: conn.service });
      this.destroy(conn);
    }
  }

  private destroy(conn: Connection): void {
    conn.client.destroy();
    conn.backend?.destroy();
    this.open.delete(conn);
  }
}
