/** Node IPAM: a pod range of the cluster CIDR for every node (spec.podCIDR). */
export { nodeIpamController, NODE_IPAM } from './controller.js';
export { clusterCidrConfig, parseIPv4Cidr, formatCidr, DEFAULT_CLUSTER_CIDR, DEFAULT_NODE_CIDR_MASK_SIZE, type ClusterCidrConfig } from './cidr.js';
export { CidrSet, NO_CIDRS_REMAINING } from './cidr-set.js';
export { CidrBook } from './book.js';
export { planNodeEvent, planAllocation, podCIDRsOf, type BookAction, type AllocationAction, type Holding } from './plan.js';
