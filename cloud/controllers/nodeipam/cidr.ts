import { formatIPv4, parseIPv4 } from '../../../shared/ipv4.js';

/** An IPv4 block: its first address (as a number) and prefix length. */
export interface Ipv4Cidr {
  base: number;
  prefix: number;
}

/** The cluster's pod network on one machine: real loopback addresses (all of 127.0.0.0/8 is loopback on Linux). */
export const DEFAULT_CLUSTER_CIDR = '127.64.0.0/10';
/** kube-controller-manager's --node-cidr-mask-size default for IPv4. */
export const DEFAULT_NODE_CIDR_MASK_SIZE = 24;
/** At most 2^24 node blocks are tracked (one byte each): kube bounds its bitmap too (16 bits, for IPv6). */
const MAX_BLOCK_BITS = 24;

export const blockSize = (prefix: number): number => 2 ** (32 - prefix);

/** "a.b.c.d/n" as a block, its host bits cleared (as Go's net.ParseCIDR returns it); undefined for anything else. */
export function parseIPv4Cidr(text: string): Ipv4Cidr | undefined {
  const [address = '', bits, ...rest] = text.split('/');
  if (bits === undefined || rest.length > 0 || !/^(0|[1-9]\d?)$/.test(bits) || Number(bits) > 32) return undefined;
  const ip = parseIPv4(address);
  if (ip === undefined) return undefined;
  const prefix = Number(bits);
  return { base: ip - (ip % blockSize(prefix)), prefix };
}

export function formatCidr(cidr: Ipv4Cidr): string {
  return `${formatIPv4(cidr.base)}/${cidr.prefix}`;
}

/** What the node-IPAM controller cuts into node blocks. */
export interface ClusterCidrConfig {
  cluster: Ipv4Cidr;
  nodeMaskSize: number;
}

/**
 * `--cluster-cidr` and `--node-cidr-mask-size`, checked as kube-controller-manager checks them
 * (its message for a node mask wider than the cluster's), IPv4 only. Throws an Error that names
 * the flags; the CLI prints it before anything starts.
 */
export function clusterCidrConfig(clusterCidr: string, nodeMaskSize: number): ClusterCidrConfig {
  const cluster = parseIPv4Cidr(clusterCidr);
  if (!cluster) throw new Error(`invalid --cluster-cidr "${clusterCidr}": not an IPv4 CIDR such as ${DEFAULT_CLUSTER_CIDR} (kedge allocates IPv4 pod ranges only)`);
  if (!Number.isInteger(nodeMaskSize) || nodeMaskSize < 1 || nodeMaskSize > 32) throw new Error(`invalid --node-cidr-mask-size ${nodeMaskSize}: expected a prefix length from 1 to 32`);
  if (cluster.prefix > nodeMaskSize) {
    throw new Error(`Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family (--cluster-cidr ${clusterCidr} is a /${cluster.prefix}, --node-cidr-mask-size is ${nodeMaskSize})`);
  }
  if (nodeMaskSize - cluster.prefix > MAX_BLOCK_BITS) {
    throw new Error(`invalid --node-cidr-mask-size ${nodeMaskSize}: it cuts ${clusterCidr} into 2^${nodeMaskSize - cluster.prefix} node ranges; at most 2^${MAX_BLOCK_BITS} (use a mask of at most ${cluster.prefix + MAX_BLOCK_BITS})`);
  }
  return { cluster, nodeMaskSize };
}
