import type { Container, Pod } from '../../shared/types.js';
import { quantityMilliValue, quantityValue } from './quantity.js';

/**
 * What a pod asks of its node: the cpu (millicores) and memory (bytes) it requests, and the
 * same with kube-scheduler's non-zero defaults (100m, 200Mi) for containers that request
 * nothing, which scoring uses so that best-effort pods still spread.
 */
export interface PodRequests {
  cpu: number;
  memory: number;
  nonZeroCpu: number;
  nonZeroMemory: number;
}

/** A node's share of the live pods on it (incl. assumed ones): their count and summed requests. */
export interface NodeUsage extends PodRequests {
  pods: number;
}

export const NO_REQUESTS: PodRequests = Object.freeze({ cpu: 0, memory: 0, nonZeroCpu: 0, nonZeroMemory: 0 });
export const DEFAULT_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

function containerRequests(container: Container): PodRequests {
  const requests = container.resources?.requests ?? {};
  const cpu = requests.cpu === undefined ? undefined : (quantityMilliValue(requests.cpu) ?? 0);
  const memory = requests.memory === undefined ? undefined : (quantityValue(requests.memory) ?? 0);
  return { cpu: cpu ?? 0, memory: memory ?? 0, nonZeroCpu: cpu ?? DEFAULT_CPU_REQUEST, nonZeroMemory: memory ?? DEFAULT_MEMORY_REQUEST };
}

/**
 * The pod's effective requests, as kube-scheduler computes them: the sum over its containers,
 * raised to the largest init container's request (init containers run one at a time).
 */
export function podRequests(pod: Pod): PodRequests {
  const sum = { ...NO_REQUESTS };
  for (const c of pod.spec.containers ?? []) {
    const r = containerRequests(c);
    sum.cpu += r.cpu;
    sum.memory += r.memory;
    sum.nonZeroCpu += r.nonZeroCpu;
    sum.nonZeroMemory += r.nonZeroMemory;
  }
  for (const c of pod.spec.initContainers ?? []) {
    const r = containerRequests(c);
    sum.cpu = Math.max(sum.cpu, r.cpu);
    sum.memory = Math.max(sum.memory, r.memory);
    sum.nonZeroCpu = Math.max(sum.nonZeroCpu, r.nonZeroCpu);
    sum.nonZeroMemory = Math.max(sum.nonZeroMemory, r.nonZeroMemory);
  }
  return Object.freeze(sum);
}

/**
 * Each pod's requests, parsed once per spec: keyed by uid and checked against
 * metadata.generation, which the apiserver bumps on every spec change. Every status update
 * of a running pod thus costs a map lookup, not a parse. Pods without both are parsed afresh.
 */
export class PodRequestsCache {
  private readonly byUid = new Map<string, { generation: number; requests: PodRequests }>();

  of(pod: Pod): PodRequests {
    const { uid, generation } = pod.metadata;
    if (uid === undefined || generation === undefined) return podRequests(pod);
    const cached = this.byUid.get(uid);
    if (cached?.generation === generation) return cached.requests;
    const requests = podRequests(pod);
    this.byUid.set(uid, { generation, requests });
    return requests;
  }

  forget(uid: string | undefined): void {
    if (uid !== undefined) this.byUid.delete(uid);
  }
}

function sameRequests(a: PodRequests, b: PodRequests): boolean {
  return a === b || (a.cpu === b.cpu && a.memory === b.memory && a.nonZeroCpu === b.nonZeroCpu && a.nonZeroMemory === b.nonZeroMemory);
}

/**
 * Which node each live pod is on (or assumed to be on), with per-node pod counts and summed
 * requests kept incrementally, so a placement decision never walks the pods. Each node's
 * usage is one object for good, changed in place: the scheduler's node list holds it.
 */
export class PodPlacement {
  private readonly placed = new Map<string, { node: string; requests: PodRequests }>();
  private readonly usage = new Map<string, NodeUsage>();

  /** The node's usage, live (created empty on first ask). */
  usageOf(node: string): NodeUsage {
    let usage = this.usage.get(node);
    if (!usage) this.usage.set(node, (usage = { pods: 0, ...NO_REQUESTS }));
    return usage;
  }

  set(key: string, node: string | undefined, requests: PodRequests = NO_REQUESTS): void {
    const old = this.placed.get(key);
    if (old?.node === node && (!old || sameRequests(old.requests, requests))) return;
    if (old) {
      this.placed.delete(key);
      this.add(this.usageOf(old.node), old.requests, -1);
    }
    if (node !== undefined) {
      this.placed.set(key, { node, requests });
      this.add(this.usageOf(node), requests, 1);
    }
  }

  /** The node the pod is placed on, if any. */
  nodeOf(key: string): string | undefined {
    return this.placed.get(key)?.node;
  }

  /** The node's pod count (for callers that need only that). */
  count(node: string): number {
    return this.usage.get(node)?.pods ?? 0;
  }

  /** Forgets a deleted node's usage once no pod is left on it. */
  dropNode(node: string): void {
    if (this.usage.get(node)?.pods === 0) this.usage.delete(node);
  }

  private add(usage: NodeUsage, r: PodRequests, sign: 1 | -1): void {
    usage.pods += sign;
    usage.cpu += sign * r.cpu;
    usage.memory += sign * r.memory;
    usage.nonZeroCpu += sign * r.nonZeroCpu;
    usage.nonZeroMemory += sign * r.nonZeroMemory;
  }
}
