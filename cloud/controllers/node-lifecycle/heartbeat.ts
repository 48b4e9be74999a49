import type { Subscription } from 'rxjs';
import type { KubeObject, Node } from '../../../shared/types.js';

import type { ControllerContext } from '../controller.js';
import type { ConditionStatus } from './taints.js';

/**
 * What the controller remembers of a node between passes, as Kubernetes' nodeHealthData: the
 * last heartbeat value seen and when *this controller* saw it change. Comparing its own clock
 * with its own clock makes the grace period immune to skew between the node and the cloud.
 */
export interface NodeProbe {
  heartbeat: string | undefined;
  probeTime: number;
  /** The Ready status after the last pass (undefined before the first): for NodeNotReady/NodeReady events. */
  lastReady?: ConditionStatus | undefined;
}

/** The probe after looking at the node at `now`: a node first seen, or whose heartbeat moved, is fresh. Pure. */
export function observeProbe(previous: NodeProbe | undefined, heartbeat: string | undefined, now: number): NodeProbe {
  if (!previous) return { heartbeat, probeTime: now };
  if (previous.heartbeat !== heartbeat) return { ...previous, heartbeat, probeTime: now };
  return previous;
}

/** One way a node proves it is alive. The controller combines all of its sources: any of them moving counts. */
export interface HeartbeatSource {
  /** A value that changes with every heartbeat of the node (undefined when it has none). */
  heartbeatOf(node: Node): string | undefined;
  /** Starts following whatever else it reads (e.g. a lease informer); returns how to stop. */
  start?(ctx: ControllerContext): () => void;
}

/** The Ready condition's lastHeartbeatTime: written by the hub, with the cloud's clock, on every node heartbeat. */
export const readyConditionHeartbeat: HeartbeatSource = {
  heartbeatOf: (node) => node.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime,
};

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string; renewTime?: string };
}

/**
 * A coordination.k8s.io/v1 Lease per node in kube-node-lease, renewed by the node: the cheap
 * heartbeat of Kubernetes. kedge's hub renews it on the node's heartbeats (cloud/hub/node-leases.ts), beside the Ready condition.
 */
export function leaseHeartbeat(namespace = 'kube-node-lease'): HeartbeatSource {
  const renewed = new Map<string, string>();
  return {
    heartbeatOf: (node) => renewed.get(node.metadata.name ?? ''),
    start(ctx) {
      const ref = { resource: 'leases', group: 'coordination.k8s.io', namespace };
      const subscription: Subscription = ctx.informers.of<Lease>(ref).subscribe((event) => {
        if (event.type === 'SYNCED') return;
        const name = event.object.metadata.name ?? '';
        const renewTime = event.object.spec?.renewTime;
        if (event.type === 'DELETED' || !renewTime) renewed.delete(name);
        else renewed.set(name, renewTime);
      });
      return () => subscription.unsubscribe();
    },
  };
}

/** The combined heartbeat of a node over all sources. */
export function heartbeatOf(sources: readonly HeartbeatSource[], node: Node): string | undefined {
  const beats = sources.map((s) => s.heartbeatOf(node));
  return beats.every((b) => b === undefined) ? undefined : JSON.stringify(beats);
}
