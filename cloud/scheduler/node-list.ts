import type { NodeInfo } from './pick-node.js';

/**
 * The scheduler's nodes as an array (for the round-robin start of each pick) with an index by
 * name, so that adding, replacing and removing a node are O(1). Removal moves the last node
 * into the hole: the order is arbitrary, as kube-scheduler's snapshot order is to a user.
 */
export class NodeList {
  private readonly list: NodeInfo[] = [];
  private readonly index = new Map<string, number>();

  get all(): readonly NodeInfo[] {
    return this.list;
  }

  get size(): number {
    return this.list.length;
  }

  get(name: string): NodeInfo | undefined {
    const i = this.index.get(name);
    return i === undefined ? undefined : this.list[i];
  }

  set(info: NodeInfo): void {
    const i = this.index.get(info.offer.name);
    if (i !== undefined) this.list[i] = info;
    else this.index.set(info.offer.name, this.list.push(info) - 1);
  }

  delete(name: string): void {
    const i = this.index.get(name);
    if (i === undefined) return;
    const last = this.list.pop()!;
    this.index.delete(name);
    if (i < this.list.length) {
      this.list[i] = last;
      this.index.set(last.offer.name, i);
    }
  }
}
