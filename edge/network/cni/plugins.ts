import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';
import { diskIpamStore } from './disk-ipam-store.js';
import { HostLocalPlugin } from './host-local-plugin.js';
import { memoryIpamStore } from './ipam-store.js';
import type { NetworkPlugin } from './network-plugin.js';

export interface NetworkPluginOptions {
  nodeName: string;
  /** The node's podCIDR now; undefined until the cloud assigned one. */
  podCIDR: () => string | undefined;
  clock: Clock;
}

/** For real edges: reservations in `<dataDir>/cni/networks/kedge/`, surviving restarts and kill -9. */
export function openHostLocalPlugin(options: NetworkPluginOptions & { dataDir: string; logger: Logger }): Promise<NetworkPlugin> {
  const { dataDir, logger, ...deps } = options;
  return HostLocalPlugin.open({ ...deps, store: diskIpamStore({ dataDir, logger }) });
}

/** For hollow fleets and sim-only tests: reservations in memory, rebuilt from the runtime's sandboxes by GC at start. */
export function memoryNetworkPlugin(options: NetworkPluginOptions): NetworkPlugin {
  return new HostLocalPlugin({ ...options, store: memoryIpamStore() });
}
