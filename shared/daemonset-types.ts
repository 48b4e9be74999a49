import type { IntOrPercent, LabelSelector, PodTemplateSpec } from './apps-types.js';
import type { KubeObject } from './types.js';

/** The apps/v1 DaemonSet and ControllerRevision shapes kedge understands. */

export interface DaemonSetUpdateStrategy {
  type?: 'RollingUpdate' | 'OnDelete';
  rollingUpdate?: { maxUnavailable?: IntOrPercent; maxSurge?: IntOrPercent };
}

export interface DaemonSetSpec {
  selector: LabelSelector;
  template: PodTemplateSpec;
  updateStrategy?: DaemonSetUpdateStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

export interface DaemonSetStatus {
  currentNumberScheduled: number;
  numberMisscheduled: number;
  desiredNumberScheduled: number;
  numberReady: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

export interface DaemonSet extends KubeObject {
  spec: DaemonSetSpec;
  status?: DaemonSetStatus;
}

/** An immutable snapshot of a controller's template: `data` is what `kubectl rollout undo` patches back. */
export interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision: number;
}

/** Label on ControllerRevisions and DaemonSet pods naming the revision (apps.DefaultDaemonSetUniqueLabelKey). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
/** Label on DaemonSet pods: the template generation they were made from. */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
/** Annotation on a DaemonSet that apps/v1 keeps its templateGeneration in; the apiserver bumps it when the template changes. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
