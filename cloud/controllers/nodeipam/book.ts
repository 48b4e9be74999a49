import type { Logger } from '../../../shared/log.js';
import { CidrSet } from './cidr-set.js';
import type { ClusterCidrConfig } from './cidr.js';
import type { BookAction, Holding } from './plan.js';

/**
 * The allocator's state: the set of node ranges, what it holds for each node, and the nodes
 * told that none is left. Applying a node event's actions returns the nodes to plan for: the
 * one that needs a range, and, when a range is released, every node waiting for one.
 */
export class CidrBook {
  readonly set: CidrSet;
  private readonly holdings = new Map<string, Holding>();
  private readonly starved = new Set<string>();

  constructor(config: ClusterCidrConfig, private readonly logger: Logger) {
    this.set = new CidrSet(config);
  }

  held(node: string): Holding | undefined {
    return this.holdings.get(node);
  }

  isStarved(node: string): boolean {
    return this.starved.has(node);
  }

  starve(node: string): void {
    this.starved.add(node);
  }

  /** Takes `cidr` from the set for the node (AllocateNext), held until the node is deleted. */
  take(node: string, uid: string, cidr: string): void {
    this.set.take(cidr);
    this.holdings.set(node, { uid, cidrs: [cidr] });
    this.starved.delete(node);
  }

  note(actions: readonly BookAction[]): string[] {
    const plan = new Set<string>();
    for (const action of actions) {
      if (action.type === 'allocate') plan.add(action.node);
      else if (action.type === 'forget') {
        this.starved.delete(action.node);
        plan.delete(action.node);
      } else if (action.type === 'release') {
        for (const cidr of action.cidrs) this.set.release(cidr);
        this.holdings.delete(action.node);
        this.starved.delete(action.node);
        for (const waiting of this.starved) plan.add(waiting);
      } else this.occupy(action.node, action.uid, action.cidrs);
    }
    return [...plan];
  }

  /** Marks a node's ranges used; one outside the cluster CIDR is logged and left alone (releasing it later is a no-op). */
  private occupy(node: string, uid: string, cidrs: readonly string[]): void {
    for (const cidr of cidrs) {
      const problem = this.set.occupy(cidr);
      if (problem) this.logger.warn('node has a pod range the allocator cannot track: kept as it is', { node, cidr, problem });
    }
    this.holdings.set(node, { uid, cidrs: [...cidrs] });
    this.starved.delete(node);
  }
}
