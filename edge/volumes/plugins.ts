import type { Volume } from '../../shared/volume-types.js';
import { configMapPlugin, downwardAPIPlugin, projectedPlugin, secretPlugin } from './config-plugins.js';
import { emptyDirPlugin, hostPathPlugin, persistentVolumeClaimPlugin } from './dir-plugins.js';
import { VolumeError, type VolumePlugin } from './volume-plan.js';

/** Every volume plugin the edge has, as kubelet's ProbeVolumePlugins. */
export const VOLUME_PLUGINS: readonly VolumePlugin[] = [
  configMapPlugin, secretPlugin, downwardAPIPlugin, projectedPlugin, emptyDirPlugin, hostPathPlugin, persistentVolumeClaimPlugin,
];

/** The plugin that serves `volume` (kube's FindPluginBySpec); a VolumeError when none does. */
export function pluginFor(volume: Volume, plugins: readonly VolumePlugin[] = VOLUME_PLUGINS): VolumePlugin {
  const found = plugins.find((p) => p.canSupport(volume));
  if (!found) throw new VolumeError(`no volume plugin matched for volume "${volume.name}"`);
  return found;
}
