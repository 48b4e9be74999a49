import type { NetworkPlugin } from '../../edge/network/cni/network-plugin.js';
import { memoryNetworkPlugin } from '../../edge/network/cni/plugins.js';
import { FakeClock, type Clock } from '../../shared/clock.js';

/** The podCIDR runtime tests give their node: loopback (on Linux), so a process pod can bind its address. */
export const TEST_POD_CIDR = '127.64.1.0/24';

/** A ready network plugin over a fixed podCIDR, in memory: what a runtime test addresses its sandboxes with. */
export function testNetwork(podCIDR = TEST_POD_CIDR, clock: Clock = new FakeClock()): NetworkPlugin {
  return memoryNetworkPlugin({ nodeName: 'edge-1', podCIDR: () => podCIDR, clock });
}
