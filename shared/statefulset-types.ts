import type { LabelSelector, PodTemplateSpec } from './apps-types.js';
import type { PersistentVolumeClaim } from './storage-types.js';
import type { KubeObject } from './types.js';

/** The apps/v1 StatefulSet shape kedge understands. */

export type PodManagementPolicy = 'OrderedReady' | 'Parallel';
export type ClaimRetention = 'Retain' | 'Delete';

export interface StatefulSetUpdateStrategy {
  type?: 'RollingUpdate' | 'OnDelete';
  rollingUpdate?: { partition?: number; maxUnavailable?: number | string };
}

export interface StatefulSetSpec {
  replicas?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  volumeClaimTemplates?: PersistentVolumeClaim[];
  serviceName?: string;
  podManagementPolicy?: PodManagementPolicy;
  updateStrategy?: StatefulSetUpdateStrategy;
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: ClaimRetention; whenScaled?: ClaimRetention };
  ordinals?: { start?: number };
}

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

export interface StatefulSet extends KubeObject {
  spec: StatefulSetSpec;
  status?: StatefulSetStatus;
}

/** Labels the StatefulSet controller puts on each pod: its name and its ordinal. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
