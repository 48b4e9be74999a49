import type { Node, Pod } from '../../shared/types.js';
import { NodeList } from './node-list.js';
import { nodeInfo } from './pick-node.js';
import { makesRoom } from './plan.js';
import { PodPlacement, PodRequestsCache, type PodRequests } from './pod-placement.js';

/**
 * What the scheduler knows (kube-scheduler's cache): the pods and nodes as the watches show
 * them, where each pod takes room, and the bindings written but not yet seen. Methods that move
 * a pod say whether that made room on a node, so the caller can retry unschedulable pods.
 */
export class SchedulerCache {
  readonly nodes = new NodeList();
  /** Pods no node fitted at their last attempt. */
  readonly unschedulable = new Set<string>();
  private readonly pods = new Map<string, Pod>();
  private readonly placement = new PodPlacement();
  private readonly requests = new PodRequestsCache();
  /** Bindings written but not yet seen through the watch: pod key → node. */
  private readonly assumed = new Map<string, string>();

  pod(key: string): Pod | undefined {
    return this.pods.get(key);
  }

  allPods(): Iterable<[string, Pod]> {
    return this.pods;
  }

  assumedNode(key: string): string | undefined {
    return this.assumed.get(key);
  }

  requestsOf(pod: Pod): PodRequests {
    return this.requests.of(pod);
  }

  /** Keeps this version of the pod, taking room on `node` (none: undefined). */
  storePod(key: string, pod: Pod, node: string | undefined): boolean {
    this.pods.set(key, pod);
    return this.place(key, node, node === undefined ? undefined : this.requests.of(pod));
  }

  removePod(key: string, uid: string | undefined): boolean {
    this.pods.delete(key);
    this.unschedulable.delete(key);
    this.requests.forget(uid);
    return this.place(key, undefined);
  }

  storeNode(node: Node): void {
    this.nodes.set(nodeInfo(node, this.placement.usageOf(node.metadata.name!)));
  }

  removeNode(name: string): void {
    this.nodes.delete(name);
    this.placement.dropNode(name);
  }

  /** Counts the pod on `node` until the watch shows the binding, so the next pick sees it. */
  assume(key: string, pod: Pod, node: string, requests: PodRequests): void {
    this.unschedulable.delete(key);
    this.pods.set(key, { ...pod, spec: { ...pod.spec, nodeName: node } });
    this.placement.set(key, node, requests);
    this.assumed.set(key, node);
  }

  /** The binding is written: the watch will show it. */
  bound(key: string): void {
    this.assumed.delete(key);
  }

  /** The binding failed: the pod is as the watch last showed it (`pod`), on no node. */
  unassume(key: string, pod: Pod, node: string): boolean {
    this.assumed.delete(key);
    if (this.pods.get(key)?.spec.nodeName === node) this.pods.set(key, pod);
    return this.place(key, undefined);
  }

  private place(key: string, node: string | undefined, requests?: PodRequests): boolean {
    const was = this.placement.nodeOf(key);
    this.placement.set(key, node, requests);
    return makesRoom(was, node);
  }
}
