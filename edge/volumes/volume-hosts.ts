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

/** Where a sim pod's volumes are: 'disk' (real directories, as a process pod's), 'memory' (records only: hollow fleets). */
export type SimVolumes = 'disk' | 'memory';

/** Simulated volumes only (edged's default), named as if under /var/lib/kedge. */
export function memoryVolumeHosts(): VolumeHosts {
  const host = new MemoryVolumeHost({ dataDir: '/var/lib/kedge', hostRoot: '/var/lib/kedge/host' });
  return { hostFor: () => host, hosts: [host] };
}

/**
 * An edge's hosts: real directories for every pod (a sim container's shell reads and writes its
 * volumes there), or, with `simVolumes: 'memory'`, records for sim pods and directories for process pods.
 */
export function edgeVolumeHosts(options: { dataDir: string; hostRoot: string; clock: Clock; simVolumes?: SimVolumes }): VolumeHosts {
  const disk = new DiskVolumeHost(options);
  if ((options.simVolumes ?? 'disk') === 'disk') return { hostFor: () => disk, hosts: [disk] };
  const memory = new MemoryVolumeHost(options);
  return { hostFor: (pod) => (pod.spec.runtimeClassName === 'process' ? disk : memory), hosts: [disk, memory] };
}
