import type { NodeUsage } from '../../shared/protocol/envelope.js';

/** A node's newest usage report, as the hub took it. */
export interface ReportedUsage {
  node: string;
  usage: NodeUsage;
}

/** Where a reported pod is bound, as the hub's pod cache says (BoundPods). */
export interface PodBindings {
  has(uid: string): boolean;
  nodeOf(uid: string): string | undefined;
}

/**
 * [SYNC-22] The newest usage report of each connected node, in memory only: what the
 * metrics.k8s.io API serves. A report keeps only the pods bound to its sender; one is forgotten
 * when its node goes away. So it holds at most one report a node, each no larger than the
 * node's pods.
 */
export class NodeUsages {
  private readonly byNode = new Map<string, NodeUsage>();

  /** Keeps `usage` as the node's newest, its pods cut to those bound to it; returns the pods bound elsewhere (a pod gone from the cache is left out silently). */
  record(node: string, usage: NodeUsage, bindings: PodBindings): NodeUsage['pods'] {
    const own = usage.pods.filter((p) => bindings.nodeOf(p.uid) === node);
    const foreign = usage.pods.filter((p) => bindings.has(p.uid) && bindings.nodeOf(p.uid) !== node);
    this.byNode.set(node, { ...usage, pods: own });
    return foreign;
  }

  forget(node: string): void {
    this.byNode.delete(node);
  }

  clear(): void {
    this.byNode.clear();
  }

  /** Each node's newest report, by node name. */
  reports(): ReportedUsage[] {
    return [...this.byNode].map(([node, usage]) => ({ node, usage }));
  }

  get size(): number {
    return this.byNode.size;
  }
}
