import { formatIPv4 as intToIp, parseIPv4 as ipToInt } from '../../../shared/ipv4.js';

export { ipToInt };

/**
 * The addresses host-local hands out of a subnet: the gateway (`.1`, the first) is skipped and
 * so is the broadcast address, so a /24's pods get `.2` to `.254`.
 */
export interface PodRange {
  cidr: string;
  first: number;
  last: number;
}

/** The pod range of an IPv4 CIDR; undefined for one that is not a CIDR or leaves no address (narrower than /30). */
export function podRange(cidr: string): PodRange | undefined {
  const [address, bits, extra] = cidr.split('/');
  const prefix = Number(bits);
  const base = ipToInt(address ?? '');
  if (base === undefined || extra !== undefined || !/^\d{1,2}$/.test(bits ?? '') || prefix > 30) return undefined;
  const size = 2 ** (32 - prefix);
  const network = base - (base % size);
  return { cidr, first: network + 2, last: network + size - 2 };
}

export function inRange(range: PodRange, ip: string): boolean {
  const n = ipToInt(ip);
  return n !== undefined && n >= range.first && n <= range.last;
}

/**
 * host-local's choice: the first free address after the last one reserved (round robin, so a
 * released address is not handed out again at once), wrapping to the start of the range;
 * from the start when the last reserved one is not in the range. Undefined when all are taken.
 */
export function nextFree(range: PodRange, taken: (ip: string) => boolean, lastReserved: string | undefined): string | undefined {
  const size = range.last - range.first + 1;
  const last = lastReserved === undefined ? undefined : ipToInt(lastReserved);
  const start = last !== undefined && last >= range.first && last <= range.last ? last + 1 : range.first;
  for (let i = 0; i < size; i++) {
    const ip = intToIp(range.first + ((start - range.first + i) % size));
    if (!taken(ip)) return ip;
  }
  return undefined;
}

/** host-local's words when a range is full. */
export function exhaustedMessage(range: PodRange): string {
  return `no IP addresses available in range set: ${intToIp(range.first - 1)}-${intToIp(range.last)} (podCIDR ${range.cidr})`;
}
