import type { LabelSelector } from './apps-types.js';
import type { ObjectReference } from './service-types.js';
import type { KubeObject } from './types.js';

/**
 * discovery.k8s.io/v1 EndpointSlice and policy/v1 PodDisruptionBudget: the shapes kedge
 * stores and serves.
 */

export const DISCOVERY_GROUP = 'discovery.k8s.io';
export const POLICY_GROUP = 'policy';
/** The label naming the Service a slice belongs to, and the one naming who manages it. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const ENDPOINTSLICE_CONTROLLER_NAME = 'endpointslice-controller.k8s.io';

export type AddressType = 'IPv4' | 'IPv6' | 'FQDN';

export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface SliceEndpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
  zone?: string;
}

export interface SlicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType: AddressType;
  endpoints: SliceEndpoint[];
  ports?: SlicePort[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface PodDisruptionBudgetSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: LabelSelector;
  unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
}

export interface PodDisruptionBudgetStatus {
  observedGeneration?: number;
  /** Pods the eviction API let go and the controller has not yet seen go: name → when. */
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: Condition[];
}

export interface PodDisruptionBudget extends KubeObject {
  spec?: PodDisruptionBudgetSpec;
  status?: PodDisruptionBudgetStatus;
}
