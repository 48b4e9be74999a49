import type { Clock } from '../../shared/clock.js';
import type { Lease } from '../../shared/config-types.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Timing } from '../../shared/timing.js';
import type { Node } from '../../shared/types.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import { nodeLease, nodeLeaseSeconds } from '../control-plane-node/node-object.js';

/**
 * The kubelet renews its Lease every quarter of the Lease's duration (10 s of 40 s). Heartbeats
 * arrive about that often, a little early or late: one arriving at 80 % of the interval still
 * renews, so jitter never skips a renewal and doubles the gap.
 */
const RENEW_FRACTION = 0.25;
const EARLY_FRACTION = 0.8;

/** How long after a renewal the next is due, in the profile's milliseconds (kube's 10 s, scaled). */
export function leaseRenewIntervalMs(timing: Pick<Timing, 'nodeMonitorGraceMs'>): number {
  return timing.nodeMonitorGraceMs * RENEW_FRACTION;
}

/** Whether a heartbeat at `now` renews the Lease last renewed at `last` (never: due). Pure. */
export function renewalDue(last: number | undefined, now: number, intervalMs: number): boolean {
  return last === undefined || now - last >= intervalMs * EARLY_FRACTION;
}

/** The Lease renewed at `now`: the same object with the holder, duration and renewTime set (the owner added once known). Pure. */
export function renewedLease(current: Lease, desired: Lease): Lease {
  const owners = current.metadata.ownerReferences?.length ? current.metadata.ownerReferences : desired.metadata.ownerReferences;
  return { ...current, metadata: { ...current.metadata, ownerReferences: owners }, spec: { ...current.spec, ...desired.spec } };
}

export interface NodeLeasesDeps {
  /** A client acting as the node: its Lease is written as the kubelet writes it (Node authorizer, NodeRestriction). */
  apiAsNode(node: string): ApiClient;
  clock: Clock;
  timing: Timing;
  /** The Node's uid in the hub's cache (the Lease is owned by its Node), undefined before the cache has it. */
  nodeUid(node: string): string | undefined;
}

const leaseRef = (name?: string) => ({ resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease', ...(name !== undefined && { name }) });

/**
 * Each node's Lease in kube-node-lease, renewed on the node's behalf when its heartbeats reach
 * the hub (the kubelet's nodelease controller, which kedge's edges leave to the cloud): at most
 * once per renew interval, so the writes stay one per node per 10 s (scaled) however often the
 * node beats. The Lease last written is kept and updated as is; a conflict or a missing Lease
 * reads it again. A node that stops beating (offline) is no longer renewed.
 */
export class NodeLeases {
  private readonly renewed = new Map<string, { at: number; lease: Lease }>();
  private readonly intervalMs: number;

  constructor(private readonly deps: NodeLeasesDeps) {
    this.intervalMs = leaseRenewIntervalMs(deps.timing);
  }

  /** The node is alive at the clock's now: renews its Lease when due. */
  async heartbeat(node: string): Promise<void> {
    const now = this.deps.clock.now();
    const last = this.renewed.get(node);
    if (!renewalDue(last?.at, now, this.intervalMs)) return;
    const api = this.deps.apiAsNode(node);
    const uid = this.deps.nodeUid(node) ?? (await getOrUndefined(() => api.get<Node>({ resource: 'nodes', name: node })))?.metadata.uid;
    if (uid === undefined) return; // not registered yet: its status registers it first
    const desired = nodeLease({ metadata: { name: node, uid } }, nodeLeaseSeconds(this.deps.timing), now);
    const lease = await this.write(api, node, last?.lease, desired);
    this.renewed.set(node, { at: now, lease });
  }

  /** The node is gone: what was kept of its Lease goes. */
  forget(node: string): void {
    this.renewed.delete(node);
  }

  get size(): number {
    return this.renewed.size;
  }

  private async write(api: ApiClient, node: string, cached: Lease | undefined, desired: Lease): Promise<Lease> {
    if (cached) {
      try {
        return await api.replace<Lease>(leaseRef(node), renewedLease(cached, desired));
      } catch (err) {
        if (!isKedgeError(err, 'Conflict') && !isKedgeError(err, 'NotFound')) throw err;
      }
    }
    const current = await getOrUndefined(() => api.get<Lease>(leaseRef(node)));
    if (!current) return api.create<Lease>(leaseRef(), desired);
    return api.replace<Lease>(leaseRef(node), renewedLease(current, desired));
  }
}
