import { blockSize, formatCidr, parseIPv4Cidr, type ClusterCidrConfig } from './cidr.js';

/** kube's cidrset error when every node range is taken. */
export const NO_CIDRS_REMAINING = 'CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range';

/**
 * kube's CidrSet (pkg/controller/nodeipam/ipam/cidrset): the cluster CIDR cut into node
 * ranges of one mask size, which are used, and a rotating cursor. The next range is the first
 * free one from the cursor, and taking it moves the cursor past it, so a released range is not
 * handed out again until the cursor wraps. Marking a range used (a node that has one) does not
 * move the cursor.
 */
export class CidrSet {
  readonly max: number;
  private readonly used: Uint8Array;
  private readonly nodeBlock: number;
  private allocated = 0;
  private nextCandidate = 0;

  constructor(private readonly config: ClusterCidrConfig) {
    this.max = 2 ** (config.nodeMaskSize - config.cluster.prefix);
    this.used = new Uint8Array(this.max);
    this.nodeBlock = blockSize(config.nodeMaskSize);
  }

  /** The first free range from the cursor, without taking it; undefined when none is left. */
  next(): string | undefined {
    if (this.allocated === this.max) return undefined;
    for (let i = 0, at = this.nextCandidate; i < this.max; i++, at = (at + 1) % this.max) {
      if (this.used[at] === 0) return this.cidrAt(at);
    }
    return undefined;
  }

  /** Takes `cidr` (one of `next()`'s answers) as AllocateNext does: used, and the cursor just past it. */
  take(cidr: string): void {
    const range = this.indexes(cidr);
    if (typeof range === 'string') throw new Error(range);
    this.mark(range, 1);
    this.nextCandidate = (range[1] + 1) % this.max;
  }

  /** Marks a range a node already has as used (Occupy); an error text when it is not within the cluster CIDR. */
  occupy(cidr: string): string | undefined {
    const range = this.indexes(cidr);
    if (typeof range === 'string') return range;
    this.mark(range, 1);
    return undefined;
  }

  release(cidr: string): void {
    const range = this.indexes(cidr);
    if (typeof range !== 'string') this.mark(range, 0);
  }

  get free(): number {
    return this.max - this.allocated;
  }

  private cidrAt(index: number): string {
    return formatCidr({ base: this.config.cluster.base + index * this.nodeBlock, prefix: this.config.nodeMaskSize });
  }

  /** The node ranges `cidr` covers (first and last index), or why it cannot be tracked. */
  private indexes(cidr: string): [number, number] | string {
    const block = parseIPv4Cidr(cidr);
    if (!block) return `failed to parse CIDR ${cidr}`;
    const { cluster } = this.config;
    const clusterEnd = cluster.base + blockSize(cluster.prefix);
    const start = Math.max(block.base, cluster.base);
    const end = Math.min(block.base + blockSize(block.prefix), clusterEnd);
    if (start >= end) return `cidr ${cidr} is out the range of cluster cidr ${formatCidr(cluster)}`;
    return [Math.floor((start - cluster.base) / this.nodeBlock), Math.floor((end - 1 - cluster.base) / this.nodeBlock)];
  }

  private mark([first, last]: [number, number], bit: 0 | 1): void {
    for (let i = first; i <= last; i++) {
      if (this.used[i] === bit) continue;
      this.used[i] = bit;
      this.allocated += bit === 1 ? 1 : -1;
    }
  }
}
