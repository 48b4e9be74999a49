import type { PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimPhase, PersistentVolumePhase } from '../../../shared/storage-types.js';
import type { KubeObject } from '../../../shared/types.js';
import type { EventType } from '../events.js';

/** What the persistentvolume controller's plans ask for; apply.ts writes them through the API in order. */
export type VolumeAction =
  /** Point the volume's claimRef at the claim (with its uid); mark it bound-by-controller when it had none. */
  | { type: 'bindVolume'; volume: PersistentVolume; claim: PersistentVolumeClaim }
  /** Drop the claimRef this controller set: the claim went to another volume. */
  | { type: 'unbindVolume'; volume: PersistentVolume }
  | { type: 'volumePhase'; volume: PersistentVolume; phase: PersistentVolumePhase; message?: string }
  /** Set the claim's volumeName and the bind-completed (and bound-by-controller) annotations. */
  | { type: 'bindClaim'; claim: PersistentVolumeClaim; volume: PersistentVolume }
  | { type: 'annotateClaim'; claim: PersistentVolumeClaim; annotations: Record<string, string> }
  | { type: 'claimStatus'; claim: PersistentVolumeClaim; phase: PersistentVolumeClaimPhase; volume?: PersistentVolume }
  /** An Event about the object, recorded once per object and reason while it stays so. */
  | { type: 'event'; about: KubeObject; eventType: EventType; reason: string; message: string };

export const event = (about: KubeObject, eventType: EventType, reason: string, message: string): VolumeAction => ({ type: 'event', about, eventType, reason, message });
