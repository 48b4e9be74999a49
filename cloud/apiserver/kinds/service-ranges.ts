import { formatIPv4, parseIPv4 } from '../../../shared/ipv4.js';

/**
 * The service address range (kube-apiserver's --service-cluster-ip-range) and node port range
 * (--service-node-port-range), and how a free value is picked from each. Pure.
 *
 * As kube-apiserver does, each range has a low band kept for values users ask for by hand
 * (the first address goes to the `kubernetes` Service) and a high band that automatic
 * allocation uses first, falling back to the low band only when the high one is full.
 * Unlike kube-apiserver, which picks at random, kedge takes the lowest free value, so that
 * a replayed demo shows the same addresses.
 */

export interface IPRange {
  /** "10.96.0.0/12". */
  cidr: string;
  /** The first usable address (the network address + 1), as a number. */
  first: number;
  /** Usable addresses: the network and broadcast addresses are not. */
  size: number;
  /** Addresses below first + lowBand are left to explicit requests. */
  lowBand: number;
}

export interface PortRange {
  min: number;
  max: number;
  lowBand: number;
}

export const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12';

export function ipRange(cidr: string): IPRange {
  const [address, bits] = cidr.split('/');
  const base = parseIPv4(address ?? '');
  const prefix = Number(bits);
  if (base === undefined || !Number.isInteger(prefix) || prefix < 1 || prefix > 30) throw new RangeError(`not an IPv4 CIDR: ${cidr}`);
  const total = 2 ** (32 - prefix);
  const network = base - (base % total);
  // min(max(16, size/16), 256), as kube's ipallocator calculateRangeOffset.
  const lowBand = total <= 16 ? 0 : Math.min(Math.max(16, Math.floor(total / 16)), 256);
  return { cidr: `${formatIPv4(network)}/${prefix}`, first: network + 1, size: total - 2, lowBand };
}

export function portRange(min: number, max: number): PortRange {
  const size = max - min + 1;
  // min(max(16, size/32), 128), as kube's portallocator calculateRangeOffset.
  const lowBand = size <= 16 ? 0 : Math.min(Math.max(16, Math.floor(size / 32)), 128);
  return { min, max, lowBand };
}

export const serviceIPs = ipRange(SERVICE_CLUSTER_IP_RANGE);
export const nodePorts = portRange(30000, 32767);

/** The address the `kubernetes` Service gets: the first of the range. */
export function firstServiceIP(range: IPRange = serviceIPs): string {
  return formatIPv4(range.first);
}

export function ipInRange(range: IPRange, ip: string): boolean {
  const n = parseIPv4(ip);
  return n !== undefined && n >= range.first && n < range.first + range.size;
}

export function portInRange(range: PortRange, port: number): boolean {
  return Number.isInteger(port) && port >= range.min && port <= range.max;
}

/** The lowest free address of the high band, else of the low band; undefined when the range is full. */
export function pickServiceIP(range: IPRange, used: ReadonlySet<string>): string | undefined {
  const offset = lowestFree(range.lowBand, range.size, (i) => used.has(formatIPv4(range.first + i))) ?? lowestFree(0, range.lowBand, (i) => used.has(formatIPv4(range.first + i)));
  return offset === undefined ? undefined : formatIPv4(range.first + offset);
}

/** The lowest free port of the high band, else of the low band; undefined when the range is full. */
export function pickNodePort(range: PortRange, used: ReadonlySet<number>): number | undefined {
  const size = range.max - range.min + 1;
  const offset = lowestFree(range.lowBand, size, (i) => used.has(range.min + i)) ?? lowestFree(0, range.lowBand, (i) => used.has(range.min + i));
  return offset === undefined ? undefined : range.min + offset;
}

function lowestFree(from: number, to: number, taken: (offset: number) => boolean): number | undefined {
  for (let i = from; i < to; i++) if (!taken(i)) return i;
  return undefined;
}

export { formatIPv4, parseIPv4 };
