/**
 * The parts of Kubernetes objects and of kedge's own answers that the dashboard reads. The
 * page is a client of the API like kubectl: it declares the shapes it uses, nothing more.
 */
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

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  state?: { waiting?: { reason?: string }; running?: object; terminated?: { reason?: string; exitCode?: number } };
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

/** One of the cloud's components (GET /kedge/v1/components). */
export interface ComponentState {
  name: string;
  parent?: string;
  running: boolean;
  healthy: boolean;
  /** Absent from clouds that cannot say; treated as stoppable. */
  stoppable?: boolean;
  since: string;
  message: string;
}

/** GET /kedge/v1/info. */
export interface ClusterInfo {
  timeScale: number;
  nodeMonitorGraceSeconds: number;
  defaultTolerationSeconds: number;
}

/** One edge of the demo (GET /kedge/v1/demo/edges). */
export interface EdgeSummary {
  name: string;
  process: 'starting' | 'running' | 'stopping' | 'exited';
  localApiUrl: string;
  exitCode?: number | null;
  link: 'up' | 'cut' | 'none';
}

/** What an edge says itself (GET /kedge/v1/demo/edges/<node>/view). */
export interface EdgeView {
  name: string;
  process: EdgeSummary['process'];
  connection: { connected: boolean; offlineSince: string | null; queued: number } | null;
  pods: Pod[] | null;
  message?: string;
}
