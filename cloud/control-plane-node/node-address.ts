import { isIP } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import { isLoopbackHost } from '../network.js';

/**
 * The cloud node's InternalIP: the address the API serves on; 127.0.0.1 for `localhost`; for a
 * wildcard or a host name, this machine's first external IPv4 address (127.0.0.1 if it has none). Pure.
 */
export function nodeAddress(apiHost: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string {
  if (isIP(apiHost) !== 0 && apiHost !== '0.0.0.0' && apiHost !== '::') return apiHost;
  if (isLoopbackHost(apiHost)) return '127.0.0.1';
  const external = Object.values(interfaces).flatMap((list) => list ?? []).find((a) => a.family === 'IPv4' && !a.internal);
  return external?.address ?? '127.0.0.1';
}
