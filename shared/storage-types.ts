import type { KubeObject, Pod } from './types.js';
import type { LabelSelector } from './apps-types.js';
import type { ObjectReference } from './service-types.js';
import { podReferences } from './pod-references.js';

/**
 * core/v1 PersistentVolume and PersistentVolumeClaim, storage.k8s.io/v1 StorageClass: the
 * shapes kedge stores and serves, and the annotations the binding machinery speaks.
 */

export type AccessMode = 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod';
export const ACCESS_MODES: readonly AccessMode[] = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
export type VolumeMode = 'Filesystem' | 'Block';
export type ReclaimPolicy = 'Retain' | 'Delete' | 'Recycle';
export type VolumeBindingMode = 'Immediate' | 'WaitForFirstConsumer';

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

export interface VolumeNodeAffinity {
  required?: { nodeSelectorTerms: { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }[] };
}

export interface PersistentVolumeSpec {
  capacity?: Record<string, string>;
  accessModes?: AccessMode[];
  claimRef?: ObjectReference;
  persistentVolumeReclaimPolicy?: ReclaimPolicy;
  storageClassName?: string;
  volumeMode?: VolumeMode;
  nodeAffinity?: VolumeNodeAffinity;
  mountOptions?: string[];
  volumeAttributesClassName?: string;
  hostPath?: { path: string; type?: string };
  local?: { path: string; fsType?: string };
  /** Other volume sources (nfs, csi, …) are kept as given. */
  [source: string]: unknown;
}

export type PersistentVolumePhase = 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed';

export interface PersistentVolume extends KubeObject {
  spec: PersistentVolumeSpec;
  status?: { phase?: PersistentVolumePhase; message?: string; reason?: string; lastPhaseTransitionTime?: string };
}

export interface PersistentVolumeClaimSpec {
  accessModes?: AccessMode[];
  selector?: LabelSelector;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeName?: string;
  storageClassName?: string;
  volumeMode?: VolumeMode;
  volumeAttributesClassName?: string;
  dataSource?: unknown;
  dataSourceRef?: unknown;
}

export type PersistentVolumeClaimPhase = 'Pending' | 'Bound' | 'Lost';

export interface PersistentVolumeClaim extends KubeObject {
  spec: PersistentVolumeClaimSpec;
  status?: { phase?: PersistentVolumeClaimPhase; accessModes?: AccessMode[]; capacity?: Record<string, string>; [field: string]: unknown };
}

export interface StorageClass extends KubeObject {
  provisioner: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: ReclaimPolicy;
  mountOptions?: string[];
  allowVolumeExpansion?: boolean;
  volumeBindingMode?: VolumeBindingMode;
  allowedTopologies?: unknown[];
}

export const STORAGE_GROUP = 'storage.k8s.io';

/** Annotations of kube's persistentvolume-controller, scheduler and provisioners. */
export const ANN_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const ANN_BETA_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
/** A class whose volumes are made by hand (static local PVs): nothing provisions its claims. */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

/** The class a claim asks for: spec.storageClassName ("" and absent both mean none here). */
export const claimClass = (claim: PersistentVolumeClaim): string => claim.spec.storageClassName ?? '';

/** True when the class says it is the cluster's default (either annotation, "true"). */
export function isDefaultClass(sc: StorageClass): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[ANN_DEFAULT_CLASS] === 'true' || a[ANN_BETA_DEFAULT_CLASS] === 'true';
}

/** The claims a pod's volumes name (spec.volumes[].persistentVolumeClaim.claimName), in order, once each. */
export function podClaimNames(pod: Pod): string[] {
  // Claims come only from volumes: most pods name none, and skip the walk over their containers.
  if (!pod.spec?.volumes?.length) return [];
  return podReferences(pod).flatMap((ref) => (ref.kind === 'PersistentVolumeClaim' ? [ref.name] : []));
}

/** The local-path provisioner (rancher/local-path-provisioner), which kedge runs on the cloud. */
export const LOCAL_PATH_PROVISIONER = 'rancher.io/local-path';
