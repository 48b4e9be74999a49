import type { Clock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { DiskVolumeHost } from './disk-volume-host.js';
import { MemoryVolumeHost } from './memory-volume-host.js';
import type { VolumeHost } from './volume-plan.js';

/** Which VolumeHost materialises a pod's volumes, and every host (to remove what gone pods left). */
export interface VolumeHosts {
  hostFor: (pod: Pod) => VolumeHost;
  hosts: readonly VolumeHost[];
}

/** Simulated volumes only (edged's default), named as if under /var/lib/kedge. */
export function memoryVolumeHosts(): VolumeHosts {
  const host = new MemoryVolumeHost({ dataDir: '/var/lib/kedge', hostRoot: '/var/lib/kedge/host' });
  return { hostFor: () => host, hosts: [host] };
}

/** An edge's hosts: real directories for pods of the `process` runtime, records for simulated ones. */
export function edgeVolumeHosts(options: { dataDir: string; hostRoot: string; clock: Clock }): VolumeHosts {
  const disk = new DiskVolumeHost(options);
  const memory = new MemoryVolumeHost(options);
  return { hostFor: (pod) => (pod.spec.runtimeClassName === 'process' ? disk : memory), hosts: [disk, memory] };
}
