import type { NetworkPlugin, ValidAttachment } from '../network/cni/network-plugin.js';
import type { Sandbox, SandboxConfig } from './runtime.js';

/** What a runtime needs to give its sandboxes addresses, as a CRI runtime calls CNI. */
export interface SandboxNetworkOptions {
  /** The node's network plugin (one for all the node's runtimes: their sandboxes share its podCIDR). */
  network: Pick<NetworkPlugin, 'add' | 'del'>;
  /** The node's address, which a hostNetwork sandbox gets (default 127.0.0.1). */
  hostIp?: string;
}

/** A new sandbox's address: the node's for a hostNetwork pod (no plugin call), else ADD's. */
export async function sandboxAddress(options: SandboxNetworkOptions, id: string, config: SandboxConfig): Promise<Pick<Sandbox, 'ip' | 'hostNetwork'>> {
  if (config.hostNetwork) return { ip: options.hostIp ?? '127.0.0.1', hostNetwork: true };
  const { podUid, namespace, name } = config;
  return { ip: (await options.network.add({ containerId: id, podUid, namespace, name })).ip };
}

/** DEL for a sandbox that had an address from the plugin. Called once the runtime has forgotten it: a crash in between leaks nothing GC does not find. */
export async function releaseAddress(options: SandboxNetworkOptions, sandbox: Pick<Sandbox, 'id' | 'hostNetwork'>): Promise<void> {
  if (!sandbox.hostNetwork) await options.network.del({ containerId: sandbox.id });
}

/** The addresses the runtime's sandboxes hold, for the plugin's GC. */
export function validAttachments(sandboxes: readonly Sandbox[]): ValidAttachment[] {
  return sandboxes.filter((s) => !s.hostNetwork).map((s) => ({ containerId: s.id, ip: s.ip }));
}
