/**
 * The podCIDR (the kubelet's --pod-cidr) an edge started by sim/ uses while its own Node has no
 * spec.podCIDR: the `index`-th /24 of 127.32.0.0/11, loopback on Linux (process pods bind their
 * address) and outside the default cluster CIDR (127.64.0.0/10), so it never overlaps a podCIDR
 * the cloud's node IPAM assigns; once the Node's arrives, new pods get addresses from that.
 */
export function fallbackPodCIDR(index: number): string {
  return `127.${32 + (index >> 8)}.${index & 255}.0/24`;
}
