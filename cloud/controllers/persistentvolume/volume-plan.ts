import { ANN_BOUND_BY_CONTROLLER, ANN_PROVISIONED_BY, type PersistentVolume, type PersistentVolumeClaim } from '../../../shared/storage-types.js';
import { event, type VolumeAction } from './actions.js';

/**
 * kube's syncVolume in miniature: a volume without a claimRef is Available; one whose claim is
 * bound to it is Bound; one whose claim is gone is Released, then reclaimed by its policy:
 * Retain keeps it Released, Delete leaves a provisioned volume to its provisioner (kedge has no
 * in-tree deleters, so a hand-made one fails, as kube's hostPath does outside /tmp), Recycle
 * fails (deprecated, no recycler). `claim` is the one the claimRef names, if it exists. Pure.
 */
export function planVolume(volume: PersistentVolume, claim: PersistentVolumeClaim | undefined): VolumeAction[] {
  if (volume.metadata.deletionTimestamp) return [];
  const ref = volume.spec.claimRef;
  if (!ref || !ref.uid) return phase(volume, 'Available');
  if (!claim || claim.metadata.uid !== ref.uid) return planReleased(volume);
  const bound = claim.spec.volumeName;
  if (bound === volume.metadata.name) return phase(volume, 'Bound');
  // The claim is being bound (its sync finishes it) or was bound to this volume by hand: wait for it.
  if (!bound) return [];
  if (volume.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER] !== undefined) return [{ type: 'unbindVolume', volume }, ...phase(volume, 'Available', true)];
  return phase(volume, 'Available');
}

function planReleased(volume: PersistentVolume): VolumeAction[] {
  const current = volume.status?.phase;
  if (current === 'Failed') return [];
  if (current !== 'Released') return phase(volume, 'Released');
  const policy = volume.spec.persistentVolumeReclaimPolicy ?? 'Retain';
  if (policy === 'Retain') return [];
  if (policy === 'Delete') {
    // An external provisioner deletes what it provisioned (the local-path provisioner here).
    if (volume.metadata.annotations?.[ANN_PROVISIONED_BY]) return [];
    const why = `error getting deleter volume plugin for volume ${JSON.stringify(volume.metadata.name)}: no deletable volume plugin matched`;
    return [{ type: 'volumePhase', volume, phase: 'Failed', message: why }, event(volume, 'Warning', 'VolumeFailedDelete', why)];
  }
  const why = 'No recycler plugin found for the volume!';
  return [{ type: 'volumePhase', volume, phase: 'Failed', message: why }, event(volume, 'Warning', 'VolumeFailedRecycle', why)];
}

function phase(volume: PersistentVolume, wanted: 'Available' | 'Bound' | 'Released', force = false): VolumeAction[] {
  return !force && volume.status?.phase === wanted ? [] : [{ type: 'volumePhase', volume, phase: wanted }];
}
