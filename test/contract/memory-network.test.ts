import { memoryNetworkPlugin } from '../../edge/network/cni/plugins.js';
import { networkPluginContract } from './network-plugin.contract.js';

networkPluginContract('host-local IPAM in memory (hollow fleets, sim-only tests)', async (deps) => {
  return { plugin: memoryNetworkPlugin(deps), reopen: async () => memoryNetworkPlugin(deps), cleanup: async () => {} };
});
