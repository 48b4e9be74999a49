import type { Pod } from '../../../shared/types.js';
import { cacheKey } from '../../informer/informer.js';

/** The informer's bound pods, by node. Keyed by uid, as the informer is, so a recreated pod is a new entry. */
export class PodsByNode {
  private readonly byNode = new Map<string, Map<string, Pod>>();
  private readonly nodeOf = new Map<string, string>();

  /** Records the pod; returns the nodes whose pods changed (its old one and its new one). */
  set(pod: Pod): string[] {
    const key = cacheKey(pod);
    const before = this.remove(key);
    const node = pod.spec.nodeName;
    if (node) {
      let pods = this.byNode.get(node);
      if (!pods) this.byNode.set(node, (pods = new Map()));
      pods.set(key, pod);
      this.nodeOf.set(key, node);
    }
    return [...new Set([before, node].filter((n): n is string => n !== undefined))];
  }

  /** Forgets the pod; returns the node it was on. */
  delete(pod: Pod): string | undefined {
    return this.remove(cacheKey(pod));
  }

  on(node: string): Pod[] {
    return [...(this.byNode.get(node)?.values() ?? [])];
  }

  has(pod: Pod): boolean {
    return this.nodeOf.has(cacheKey(pod));
  }

  private remove(key: string): string | undefined {
    const node = this.nodeOf.get(key);
    if (node === undefined) return undefined;
    this.nodeOf.delete(key);
    const pods = this.byNode.get(node);
    pods?.delete(key);
    if (pods?.size === 0) this.byNode.delete(node);
    return node;
  }
}
