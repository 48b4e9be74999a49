/** FNV-1a: a stable small hash, so a node keeps its pod subnet across restarts. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The kubelet's default --max-pods. */
export const DEFAULT_MAX_PODS = 110;
/** A node may not hold more (a /16 of pod IPs). */
export const MAX_PODS_LIMIT = 65_000;

export interface PodSubnet {
  cidr: string;
  /** How many pod IPs it holds: `address(2)` … `address(size + 1)`. */
  size: number;
  address(n: number): string;
}

/**
 * A node's pod subnet in 10.244.0.0/16, as a node's podCIDR: a /24 (pods .2 to .254) at
 * `10.244.<hash of the node name mod 250>`, or, for a node that holds more than 253 pods, the
 * smallest wider block that fits them, picked by the same hash. Pure.
 */
export function podSubnet(nodeName: string, maxPods = DEFAULT_MAX_PODS): PodSubnet {
  const hostBits = Math.max(8, Math.ceil(Math.log2(maxPods + 3)));
  if (hostBits === 8) {
    const base = `10.244.${hashOf(nodeName) % 250}`;
    return { cidr: `${base}.0/24`, size: 253, address: (n) => `${base}.${n}` };
  }
  const blocks = 2 ** (16 - hostBits);
  const third = (hashOf(nodeName) % blocks) << (hostBits - 8);
  return {
    cidr: `10.244.${third}.0/${32 - hostBits}`,
    size: 2 ** hostBits - 3,
    address: (n) => `10.244.${third + (n >> 8)}.${n & 255}`,
  };
}
