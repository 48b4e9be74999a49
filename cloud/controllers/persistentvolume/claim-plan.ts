import {
  ANN_BIND_COMPLETED,
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  claimClass,
  NO_PROVISIONER,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../../shared/storage-types.js';
import { stableJson } from '../../client/object-meta.js';
import { event, type VolumeAction } from './actions.js';
import { findBestVolume, isBoundTo } from './matching.js';

/** What one claim's sync sees: the volumes, its class (if it exists) and the labels of the node picked for it (if any). */
export interface ClaimView {
  claim: PersistentVolumeClaim;
  volumes: readonly PersistentVolume[];
  storageClass: StorageClass | undefined;
  selectedNodeLabels?: Readonly<Record<string, string>>;
}

/** kube's syncClaim in miniature: bind an unbound claim or say why not; keep a bound one's status right. Pure. */
export function planClaim(view: ClaimView): VolumeAction[] {
  const { claim } = view;
  if (claim.metadata.deletionTimestamp) return [];
  return claim.spec.volumeName ? planBoundClaim(view) : planUnboundClaim(view);
}

const EXTERNAL_PROVISIONING = (p: string): string =>
  `Waiting for a volume to be created either by the external provisioner '${p}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`;

function planUnboundClaim({ claim, volumes, storageClass, selectedNodeLabels }: ClaimView): VolumeAction[] {
  const delayBinding = storageClass?.volumeBindingMode === 'WaitForFirstConsumer';
  const selected = claim.metadata.annotations?.[ANN_SELECTED_NODE];
  const node = delayBinding && selected && selectedNodeLabels ? { name: selected, labels: selectedNodeLabels } : undefined;
  const volume = findBestVolume(claim, volumes, { delayBinding, node });
  if (volume) return bind(claim, volume);
  const actions = claimStatus(claim, 'Pending');
  if (delayBinding && !selected) return [...actions, event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding')];
  const className = claimClass(claim);
  if (className === '') return [...actions, event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set')];
  if (!storageClass) return [...actions, event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io ${JSON.stringify(className)} not found`)];
  const provisioner = storageClass.provisioner;
  if (provisioner === NO_PROVISIONER) return [...actions, event(claim, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${NO_PROVISIONER}`)];
  const annotations = claim.metadata.annotations ?? {};
  if (annotations[ANN_STORAGE_PROVISIONER] !== provisioner || annotations[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
    actions.push({ type: 'annotateClaim', claim, annotations: { [ANN_STORAGE_PROVISIONER]: provisioner, [ANN_BETA_STORAGE_PROVISIONER]: provisioner } });
  }
  return [...actions, event(claim, 'Normal', 'ExternalProvisioning', EXTERNAL_PROVISIONING(provisioner))];
}

function planBoundClaim({ claim, volumes }: ClaimView): VolumeAction[] {
  const name = claim.spec.volumeName!;
  const volume = volumes.find((v) => v.metadata.name === name);
  const completed = claim.metadata.annotations?.[ANN_BIND_COMPLETED] !== undefined;
  if (!volume) {
    if (!completed) return claimStatus(claim, 'Pending');
    return [...claimStatus(claim, 'Lost'), event(claim, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!')];
  }
  if (!volume.spec.claimRef || isBoundTo(volume, claim)) return bind(claim, volume);
  if (completed) return [...claimStatus(claim, 'Lost'), event(claim, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly')];
  return [...claimStatus(claim, 'Pending'), event(claim, 'Warning', 'FailedBinding', `volume ${JSON.stringify(name)} already bound to a different claim.`)];
}

/** kube's bind(): the volume's claimRef, its phase, the claim's volumeName and annotations, the claim's status: each only if not so already. */
function bind(claim: PersistentVolumeClaim, volume: PersistentVolume): VolumeAction[] {
  const actions: VolumeAction[] = [];
  if (!isBoundTo(volume, claim) || !volume.spec.claimRef?.uid) actions.push({ type: 'bindVolume', volume, claim });
  if (volume.status?.phase !== 'Bound') actions.push({ type: 'volumePhase', volume, phase: 'Bound' });
  if (claim.spec.volumeName !== volume.metadata.name || claim.metadata.annotations?.[ANN_BIND_COMPLETED] === undefined) actions.push({ type: 'bindClaim', claim, volume });
  return [...actions, ...claimStatus(claim, 'Bound', volume)];
}

function claimStatus(claim: PersistentVolumeClaim, phase: 'Pending' | 'Bound' | 'Lost', volume?: PersistentVolume): VolumeAction[] {
  const status = claim.status ?? {};
  const same =
    status.phase === phase &&
    (phase !== 'Bound' || (stableJson(status.capacity ?? {}) === stableJson(volume?.spec.capacity ?? {}) && stableJson(status.accessModes ?? []) === stableJson(volume?.spec.accessModes ?? [])));
  return same ? [] : [{ type: 'claimStatus', claim, phase, volume }];
}
