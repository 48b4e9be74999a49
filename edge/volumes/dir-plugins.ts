import type { HostPathType } from '../../shared/volume-types.js';
import { VolumeError, type PluginContext, type VolumePlan, type VolumePlugin } from './volume-plan.js';

export const emptyDirPlugin: VolumePlugin = {
  name: 'kubernetes.io~empty-dir',
  remount: false,
  canSupport: (v) => v.emptyDir !== undefined,
  plan(volume): VolumePlan {
    const { medium = '', sizeLimit } = volume.emptyDir!;
    return { type: 'emptyDir', medium, ...(sizeLimit !== undefined ? { sizeLimit } : {}) };
  },
};

export const hostPathPlugin: VolumePlugin = {
  name: 'kubernetes.io~host-path',
  remount: false,
  canSupport: (v) => v.hostPath !== undefined,
  plan: (volume) => ({ type: 'hostPath', path: volume.hostPath!.path, hostPathType: volume.hostPath!.type ?? '' }),
};

/** The claim's bound volume: where on the node (hostPath or local) its data lives. */
function claimedPath(claimName: string, { pod, objects }: PluginContext): VolumePlan {
  const namespace = pod.metadata.namespace ?? 'default';
  if (!objects.persistentVolumeClaim || !objects.persistentVolume) throw new VolumeError(`persistentvolumeclaim "${claimName}" not found`);
  const claim = objects.persistentVolumeClaim(namespace, claimName);
  if (!claim) throw new VolumeError(`persistentvolumeclaim "${claimName}" not found`);
  const volumeName = claim.spec?.volumeName;
  if (!volumeName) throw new VolumeError(`PVC ${namespace}/${claimName} has non-bound phase ("${claim.status?.phase ?? 'Pending'}") or empty pvc.Spec.VolumeName ("")`);
  const volume = objects.persistentVolume(volumeName);
  if (!volume) throw new VolumeError(`persistentvolume "${volumeName}" not found`);
  const { hostPath, local } = volume.spec ?? {};
  if (hostPath) return { type: 'hostPath', path: hostPath.path, hostPathType: (hostPath.type ?? '') as HostPathType };
  if (local) return { type: 'hostPath', path: local.path, hostPathType: 'Directory' };
  throw new VolumeError(`persistentvolume "${volumeName}" is neither hostPath nor local: the edge cannot mount it`);
}

export const persistentVolumeClaimPlugin: VolumePlugin = {
  name: 'kubernetes.io~host-path',
  remount: false,
  canSupport: (v) => v.persistentVolumeClaim !== undefined,
  plan: (volume, context) => claimedPath(volume.persistentVolumeClaim!.claimName, context),
};
