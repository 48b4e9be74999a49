/**
 * kedge's own JSON answers that the dashboard reads beside the Kubernetes objects: one
 * definition for the server that sends them and the page that reads them. Types only, importing
 * nothing: the page imports it with `import type`, so the browser loads none of it.
 */

/** One of the cloud's components (GET /kedge/v1/components; what `kedge component status` shows). */
export interface ComponentState {
  name: string;
  parent?: string;
  running: boolean;
  healthy: boolean;
  /** False for a part that cannot be stopped (the apiserver, the hub, an external broker). */
  stoppable: boolean;
  /** When it last started or stopped (ISO time). */
  since: string;
  /** "ok", "stopped", or why it is not healthy. */
  message: string;
}

/** GET /kedge/v1/info: the time scale, and the node lifecycle's timing as the cluster sees it (already divided by the scale). */
export interface ClusterInfo {
  kind: 'ClusterInfo';
  apiVersion: 'kedge/v1';
  timeScale: number;
  nodeMonitorGraceSeconds: number;
  defaultTolerationSeconds: number;
}

/**
 * What GET /connection on an edge's local API answers. `connected` stays true until the
 * keepalive fails: a pulled cable shows first as `silentForSeconds` growing, then as
 * `connected: false`, at most 1.5 × `keepaliveSeconds` after the broker last answered.
 */
export interface ConnectionReport {
  connected: boolean;
  offlineSince: string | null;
  queued: number;
  /** When anything last came from the broker (a message, an ack, a ping's answer); null before the first. */
  lastHeardFromBroker: string | null;
  /** Seconds since then, to a tenth. */
  silentForSeconds: number | null;
  keepaliveSeconds: number;
}

export type EdgeProcessState = 'starting' | 'running' | 'stopping' | 'exited';

/** A demo link between an edge and the broker: passing bytes, or cut. */
export type LinkCondition = 'up' | 'cut';

/** One edge process of the demo. */
export interface EdgeProcessInfo {
  name: string;
  process: EdgeProcessState;
  /** The local API of the current (or last) process. */
  localApiUrl: string;
  /** How the last process ended, while none runs. */
  exitCode?: number | null;
}

/** One edge as GET /kedge/v1/demo/edges lists it: its process and its link. */
export interface EdgeSummary extends EdgeProcessInfo {
  link: LinkCondition | 'none';
}

/**
 * What an edge itself says, from its local API (GET /kedge/v1/demo/edges/<node>/view);
 * `connection` and `pods` are null when it cannot say (see `message`). `TPod`: the pod type
 * the reader declares (the server's full Pod, the page's subset).
 */
export interface EdgeView<TPod> {
  name: string;
  process: EdgeProcessState;
  connection: ConnectionReport | null;
  pods: TPod[] | null;
  message?: string;
}
