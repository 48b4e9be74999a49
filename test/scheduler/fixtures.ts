import type { NodeAffinity, NodeSelectorRequirement } from '../../cloud/scheduler/node-affinity.js';
import { nodeInfo, type NodeInfo } from '../../cloud/scheduler/pick-node.js';
import { PodPlacement, podRequests } from '../../cloud/scheduler/pod-placement.js';
import type { Node, Pod, PodSpec, Taint } from '../../shared/types.js';

/** Nodes, pods and node usage for the scheduler's plan tests. */

export interface NodeOptions {
  ready?: 'True' | 'False' | 'Unknown' | 'none';
  unschedulable?: boolean;
  taints?: Taint[];
  labels?: Record<string, string>;
  allocatable?: Record<string, string> | null;
}

export const ALLOCATABLE = { cpu: '4', memory: '8Gi', pods: '110' };

export const node = (name: string, o: NodeOptions = {}): Node => ({
  metadata: { name, ...(o.labels ? { labels: o.labels } : {}) },
  spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
  status: {
    ...(o.allocatable === null ? {} : { allocatable: o.allocatable ?? ALLOCATABLE }),
    conditions: o.ready === 'none' ? [] : [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: o.ready ?? 'True' }],
  },
});

export const pod = (spec: Partial<PodSpec> = {}): Pod => ({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c' }], ...spec } });

/** A pod requesting the given cpu and memory (either may be left out). */
export const asking = (cpu?: string, memory?: string, spec: Partial<PodSpec> = {}): Pod =>
  pod({ containers: [{ name: 'c', resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } } }], ...spec });

export const withAffinity = (nodeAffinity: NodeAffinity, spec: Partial<PodSpec> = {}): Pod => pod({ affinity: { nodeAffinity }, ...spec });

export const required = (...terms: NodeSelectorRequirement[][]): NodeAffinity => ({
  requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })) },
});

/** Pods already on each node: a list, or a count of pods requesting nothing. */
export type OnNodes = Partial<Record<string, Pod[] | number>>;

/** Node usage as the scheduler keeps it: the pods on each node, summed by PodPlacement. */
export const placed = (pods: OnNodes = {}): PodPlacement => {
  const placement = new PodPlacement();
  for (const [name, list = []] of Object.entries(pods)) {
    const each = typeof list === 'number' ? Array.from({ length: list }, () => pod()) : list;
    each.forEach((p, i) => placement.set(`${name}/${i}`, name, podRequests(p)));
  }
  return placement;
};

/** The nodes as a pick sees them, with the pods already on them. */
export const infos = (nodes: Node[], on: OnNodes | PodPlacement = {}): NodeInfo[] => {
  const placement = on instanceof PodPlacement ? on : placed(on);
  return nodes.map((n) => nodeInfo(n, placement.usageOf(n.metadata.name!)));
};

export const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' } as const;
