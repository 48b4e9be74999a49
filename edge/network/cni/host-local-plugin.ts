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
 * Calls are serialised. When the podCIDR changes (the node was re-created), new sandboxes get
 * addresses from the new one; sandboxes keep what they hold until DEL.
 */
export class HostLocalPlugin implements NetworkPlugin {
  readonly name = NETWORK_PLUGIN_NAME;
  private isRunning = true;
  private changedAt: number;
  private queue: Promise<unknown> = Promise.resolve();
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

  add(ref: SandboxRef): Promise<PodAddress> {
    return this.serial(async () => {
      const range = this.readyRange();
      const held = this.heldBy(ref.containerId);
      if (held) return addressIn(held, range);
      const ip = nextFree(range, (a) => this.state.reserved.has(a), this.state.lastReserved);
      if (!ip) throw new KedgeError('Unavailable', exhaustedMessage(range));
      await this.reserve(ip, ref.containerId);
      await this.deps.store.setLastReserved(ip);
      this.state.lastReserved = ip;
      return { ip, cidr: range.cidr };
    });
  }

  del(ref: Pick<SandboxRef, 'containerId'>): Promise<void> {
    return this.serial(async () => {
      for (const [ip, id] of [...this.state.reserved]) if (id === ref.containerId) await this.release(ip);
    });
  }

  async check(ref: Pick<SandboxRef, 'containerId'>): Promise<PodAddress> {
    const held = this.heldBy(ref.containerId);
    if (!held) throw new KedgeError('NotFound', `no IP address is recorded for container ${ref.containerId}`);
    const range = podRange(this.deps.podCIDR() ?? '');
    return addressIn(held, range);
  }

  gc(valid: readonly ValidAttachment[]): Promise<string[]> {
    return this.serial(async () => {
      const live = new Map(valid.map((v) => [v.containerId, v.ip]));
      const released: string[] = [];
      for (const [ip, id] of [...this.state.reserved]) {
        if (live.get(id) === ip) continue;
        await this.release(ip);
        released.push(ip);
      }
      for (const { containerId, ip } of valid) {
        if (this.state.reserved.has(ip)) continue;
        await this.reserve(ip, containerId);
      }
      return released;
    });
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

  private async reserve(ip: string, containerId: string): Promise<void> {
    await this.deps.store.reserve(ip, containerId);
    this.state.reserved.set(ip, containerId);
  }

  private async release(ip: string): Promise<void> {
    await this.deps.store.release(ip);
    this.state.reserved.delete(ip);
  }

  /** One call at a time: two sandboxes created together never get the same address. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function addressIn(ip: string, range: PodRange | undefined): PodAddress {
  return range && inRange(range, ip) ? { ip, cidr: range.cidr } : { ip };
}
