import { Subject, type Observable } from 'rxjs';
import type { Clock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import { exhaustedMessage, inRange, nextFree, podRange, type PodRange } from './ipv4-range.js';
import type { IpamState, IpamStore } from './ipam-store.js';
import {
  NETWORK_PLUGIN_NAME, NETWORK_PLUGIN_NOT_READY, networkNotReadyText,
  type NetworkPlugin, type NetworkStatus, type PodAddress, type SandboxRef, type ValidAttachment,
} from './network-plugin.js';

export interface HostLocalDeps {
  nodeName: string;
  /** The node's podCIDR now (its own cached Node's spec.podCIDR); undefined until the cloud assigned one. */
  podCIDR: () => string | undefined;
  clock: Clock;
  store: IpamStore;
}

/**
 * The network plugin with host-local IPAM: addresses from the node's podCIDR (gateway `.1`
 * skipped, first pod `.2`), round robin after the last reserved, one reservation per sandbox.
 * An address is chosen and recorded in one turn, so calls need no queue: a thousand sandboxes
 * created at a reboot do not wait on each other's files. When the podCIDR changes (the node
 * was re-created), new sandboxes get addresses from the new one; sandboxes keep what they
 * hold until DEL.
 */
export class HostLocalPlugin implements NetworkPlugin {
  readonly name = NETWORK_PLUGIN_NAME;
  private isRunning = true;
  private changedAt: number;
  private readonly changes = new Subject<void>();
  readonly statusChanges$: Observable<void> = this.changes.asObservable();

  /** `state` as the store loaded it (open() does both). */
  constructor(private readonly deps: HostLocalDeps, private readonly state: IpamState = { reserved: new Map() }) {
    this.changedAt = deps.clock.now();
  }

  static async open(deps: HostLocalDeps): Promise<HostLocalPlugin> {
    return new HostLocalPlugin(deps, await deps.store.load());
  }

  running(): boolean {
    return this.isRunning;
  }

  since(): number {
    return this.changedAt;
  }

  async start(): Promise<void> {
    this.turn(true);
  }

  async stop(): Promise<void> {
    this.turn(false);
  }

  status(): NetworkStatus {
    const notReady = (message: string): NetworkStatus => ({ ready: false, reason: NETWORK_PLUGIN_NOT_READY, message });
    if (!this.isRunning) return notReady(`${this.name} is stopped`);
    const cidr = this.deps.podCIDR();
    if (!cidr) return notReady(`no podCIDR assigned to node ${this.deps.nodeName} yet`);
    if (!podRange(cidr)) return notReady(`podCIDR ${cidr} of node ${this.deps.nodeName} is not an IPv4 CIDR with room for pods`);
    return { ready: true };
  }

  async add(ref: SandboxRef): Promise<PodAddress> {
    const range = this.readyRange();
    const held = this.heldBy(ref.containerId);
    if (held) return addressIn(held, range);
    // Chosen and recorded in one turn: two sandboxes created together never get the same address.
    const ip = nextFree(range, (a) => this.state.reserved.has(a), this.state.lastReserved);
    if (!ip) throw new KedgeError('Unavailable', exhaustedMessage(range));
    this.state.lastReserved = ip;
    try {
      await Promise.all([this.reserve(ip, ref.containerId), this.deps.store.setLastReserved(ip)]);
    } catch (err) {
      if (this.state.reserved.get(ip) === ref.containerId) this.state.reserved.delete(ip);
      throw err;
    }
    return { ip, cidr: range.cidr };
  }

  async del(ref: Pick<SandboxRef, 'containerId'>): Promise<void> {
    const ips = [...this.state.reserved].flatMap(([ip, id]) => (id === ref.containerId ? [ip] : []));
    await Promise.all(ips.map((ip) => this.release(ip)));
  }

  async check(ref: Pick<SandboxRef, 'containerId'>): Promise<PodAddress> {
    const held = this.heldBy(ref.containerId);
    if (!held) throw new KedgeError('NotFound', `no IP address is recorded for container ${ref.containerId}`);
    const range = podRange(this.deps.podCIDR() ?? '');
    return addressIn(held, range);
  }

  async gc(valid: readonly ValidAttachment[]): Promise<string[]> {
    const live = new Map(valid.map((v) => [v.containerId, v.ip]));
    const released = [...this.state.reserved].flatMap(([ip, id]) => (live.get(id) === ip ? [] : [ip]));
    const freed = new Set(released);
    const missing = valid.filter(({ ip }) => !this.state.reserved.has(ip) || freed.has(ip));
    await Promise.all([...released.map((ip) => this.release(ip)), ...missing.map(({ ip, containerId }) => this.reserve(ip, containerId))]);
    return released;
  }

  private turn(on: boolean): void {
    if (this.isRunning === on) return;
    this.isRunning = on;
    this.changedAt = this.deps.clock.now();
    this.changes.next();
  }

  private readyRange(): PodRange {
    const status = this.status();
    if (!status.ready) throw new KedgeError('Unavailable', networkNotReadyText(status));
    return podRange(this.deps.podCIDR()!)!;
  }

  private heldBy(containerId: string): string | undefined {
    for (const [ip, id] of this.state.reserved) if (id === containerId) return ip;
    return undefined;
  }

  /** Recorded at once (the state is what later calls decide by), then in the store. */
  private reserve(ip: string, containerId: string): Promise<void> {
    this.state.reserved.set(ip, containerId);
    return this.deps.store.reserve(ip, containerId);
  }

  private release(ip: string): Promise<void> {
    this.state.reserved.delete(ip);
    return this.deps.store.release(ip);
  }
}

function addressIn(ip: string, range: PodRange | undefined): PodAddress {
  return range && inRange(range, ip) ? { ip, cidr: range.cidr } : { ip };
}
