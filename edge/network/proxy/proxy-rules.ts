import type { Clock } from '../../../shared/clock.js';
import type { Counters } from '../../../shared/counters.js';
import type { Logger } from '../../../shared/log.js';
import { isIPv4 } from 'node:net';
import { Balancer } from './balancer.js';
import { Connections } from './connections.js';
import { ServiceListener } from './listener.js';
import type { PortalsFile } from './portals-file.js';
import { PROXY_COUNTERS, proxyCounters } from './proxy-counters.js';
import type { RuleAction } from './rule-plan.js';
import type { ServiceRule } from './service-rules.js';
import { dialTcp, type Dial } from './tcp-relay.js';

export interface ProxyRulesDeps {
  /** The node address (--node-ip): NodePorts listen on it, and portals too when it is a loopback address. */
  nodeAddress: string;
  portals: PortalsFile;
  clock: Clock;
  logger: Logger;
  /** Shuffles each Service port's endpoints (tests make it deterministic). */
  random?: () => number;
  dial?: Dial;
  /** Per listener (default 1,024). */
  maxConnections?: number;
  /** Default 10 minutes. */
  idleTimeoutMs?: number;
  /** A port that cannot be bound is tried again this often (default 5 s). */
  bindRetryMs?: number;
}

interface Rule {
  rule: ServiceRule;
  balancer: Balancer;
  portal: ServiceListener;
  /** The portal's port is on disk: env vars may name it. */
  remembered: boolean;
  nodePort?: ServiceListener;
}

/** Where a Service port is reached on this node. */
export interface Portal {
  host: string;
  port: number;
}

/**
 * The rules and the userspace data plane that serves them (kube-proxy's userspace mode): one
 * TCP listener per Service port on the node address (127.0.0.1 when that is not loopback), at a port the kernel picked and the
 * portals file keeps, plus one at the nodePort for NodePort Services; each relays to a ready
 * endpoint its balancer picks. It changes only when told (`apply`): with the agent stopped,
 * it serves the table as it was.
 */
export class ProxyRules {
  readonly counters: Counters = proxyCounters();
  private readonly rules = new Map<string, Rule>();
  private readonly connections: Connections;
  private readonly writes = new Set<Promise<void>>();

  constructor(private readonly deps: ProxyRulesDeps) {
    const { clock, logger } = deps;
    this.connections = new Connections({ clock, logger, counters: this.counters, dial: deps.dial ?? dialTcp, idleTimeoutMs: deps.idleTimeoutMs ?? 600_000 });
  }

  /** The rules in place, by ServicePortName. */
  current(): Map<string, ServiceRule> {
    return new Map([...this.rules].map(([key, r]) => [key, r.rule]));
  }

  /** The portal of a Service port on this node, once it listens and is remembered; undefined before. */
  portalOf(key: string): Portal | undefined {
    const r = this.rules.get(key);
    const port = r?.remembered ? r.portal.port() : undefined;
    return port === undefined ? undefined : { host: this.portalHost(), port };
  }

  /** Portals serve pods, processes of this machine: off loopback they would open every ClusterIP Service to the LAN. */
  private portalHost(): string {
    const node = this.deps.nodeAddress;
    return isIPv4(node) && node.startsWith('127.') ? node : '127.0.0.1';
  }

  /** Connections relayed (or being dialled) now. */
  activeConnections(): number {
    return this.connections.count();
  }

  async apply(actions: readonly RuleAction[]): Promise<void> {
    for (const action of actions) {
      if (action.type === 'close') this.close1(action.key);
      else if (action.type === 'open') await this.open1(action.rule);
      else await this.update1(action.rule);
    }
    await Promise.all(this.writes);
  }

  /** Closes every listener and connection, and waits for the portals file. */
  async close(): Promise<void> {
    for (const key of [...this.rules.keys()]) this.close1(key, false);
    this.connections.close();
    await Promise.all(this.writes);
  }

  private listener(rule: ServiceRule, balancer: Balancer, host: string, port: number, what: string, onBound?: (port: number) => void): ServiceListener {
    const { clock, logger } = this.deps;
    return new ServiceListener({
      host, port, what, clock, logger,
      maxConnections: this.deps.maxConnections ?? 1024,
      retryMs: this.deps.bindRetryMs ?? 5000,
      onConnection: (socket) => void this.connections.accept(rule.key, balancer, socket),
      onDrop: () => this.counters.add(PROXY_COUNTERS.dropped, { service: rule.key }),
      ...(onBound ? { onBound } : {}),
    });
  }

  private async open1(rule: ServiceRule): Promise<void> {
    const balancer = new Balancer(this.deps.clock, this.deps.random ?? Math.random);
    balancer.update(rule.endpoints, rule.affinityMs);
    const portal = this.listener(rule, balancer, this.portalHost(), this.deps.portals.portOf(rule.key), `portal ${rule.key}`, (port) => this.remember(rule.key, port));
    const entry: Rule = { rule, balancer, portal, remembered: false };
    this.rules.set(rule.key, entry);
    await entry.portal.listen();
    await this.openNodePort(entry);
  }

  private async update1(rule: ServiceRule): Promise<void> {
    const entry = this.rules.get(rule.key);
    if (!entry) return this.open1(rule);
    const nodePortChanged = entry.rule.nodePort !== rule.nodePort;
    entry.rule = rule;
    entry.balancer.update(rule.endpoints, rule.affinityMs);
    if (!nodePortChanged) return;
    entry.nodePort?.close();
    delete entry.nodePort;
    await this.openNodePort(entry);
  }

  private async openNodePort(entry: Rule): Promise<void> {
    const { rule } = entry;
    if (rule.nodePort === undefined) return;
    entry.nodePort = this.listener(rule, entry.balancer, this.deps.nodeAddress, rule.nodePort, `nodePort ${rule.nodePort} of ${rule.key}`);
    await entry.nodePort.listen();
  }

  /** Stops listening for the Service port; with `forget`, its portal port goes from the file (the Service port is gone). */
  private close1(key: string, forget = true): void {
    const entry = this.rules.get(key);
    if (!entry) return;
    entry.portal.close();
    entry.nodePort?.close();
    this.rules.delete(key);
    if (forget) this.track(this.deps.portals.set(key, undefined));
  }

  private remember(key: string, port: number): void {
    this.track(this.deps.portals.set(key, port).then(() => {
      const entry = this.rules.get(key);
      if (entry?.portal.port() === port) entry.remembered = true;
    }));
  }

  private track(write: Promise<void>): void {
    const tracked = write.catch((err: Error) => this.deps.logger.error('cannot write the portals file', { error: err.message })).finally(() => this.writes.delete(tracked));
    this.writes.add(tracked);
  }
}
