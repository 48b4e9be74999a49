/**
 * The parts of Kubernetes objects that the dashboard reads. The page is a client of the API
 * like kubectl: it declares the shapes it uses, nothing more. kedge's own answers have one
 * definition, shared with the server (shared/wire/dashboard.ts).
 */
import type { EdgeView as WireEdgeView } from '../../shared/wire/dashboard.js';

export type { ClusterInfo, ComponentState, EdgeSummary } from '../../shared/wire/dashboard.js';

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  annotations?: Record<string, string>;
}

export interface KubeObject {
  metadata: ObjectMeta;
}

export interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  /** When a NoExecute taint was added: eviction deadlines count from it. */
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

export interface Node extends KubeObject {
  spec?: { taints?: Taint[]; unschedulable?: boolean };
  status?: { conditions?: NodeCondition[] };
}

/** A node's Lease in kube-node-lease: renewed on every heartbeat, so its renewTime is the node's last sign of life. */
export interface Lease extends KubeObject {
  spec?: { renewTime?: string };
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  state?: { waiting?: { reason?: string }; running?: object; terminated?: { reason?: string; exitCode?: number } };
  /** The container's volumes, where it sees them (both runtimes report them). */
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface Pod extends KubeObject {
  spec?: { nodeName?: string; containers?: { name: string }[]; initContainers?: { name: string }[]; tolerations?: Toleration[] };
  status?: {
    phase?: string;
    reason?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface KubeEvent extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
}

export interface Deployment extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** A Kubernetes Status (what the API answers on failure, and in a watch's ERROR event). */
export interface Status {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
}

/** What an edge says itself, with the pods as the page reads them. */
export type EdgeView = WireEdgeView<Pod>;
