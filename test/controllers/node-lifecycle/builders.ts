import type { Node, NodeCondition, Pod, Taint, Toleration } from '../../../shared/types.js';

/** Small object builders for the node lifecycle tests. */
export const T0 = Date.UTC(2026, 0, 1);
export const iso = (ms: number): string => new Date(ms).toISOString();
export const S = 1000;

export const unreachable = (added = T0, effect: Taint['effect'] = 'NoExecute'): Taint =>
  effect === 'NoExecute' ? { key: 'node.kubernetes.io/unreachable', effect, timeAdded: iso(added) } : { key: 'node.kubernetes.io/unreachable', effect };
export const notReady = (added = T0, effect: Taint['effect'] = 'NoExecute'): Taint =>
  effect === 'NoExecute' ? { key: 'node.kubernetes.io/not-ready', effect, timeAdded: iso(added) } : { key: 'node.kubernetes.io/not-ready', effect };

export function readyCondition(status: NodeCondition['status'], heartbeat = T0): NodeCondition {
  return { type: 'Ready', status, reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: iso(heartbeat), lastTransitionTime: iso(T0 - 60 * S) };
}

export function nodeWith(opts: { name?: string; ready?: NodeCondition['status'] | 'none'; taints?: Taint[]; autonomy?: string; conditions?: NodeCondition[] } = {}): Node {
  const { name = 'edge-1', ready = 'True', taints, autonomy } = opts;
  const conditions = opts.conditions ?? (ready === 'none' ? [] : [readyCondition(ready)]);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, resourceVersion: '7', ...(autonomy !== undefined ? { annotations: { 'kedge.io/autonomy-duration': autonomy } } : {}) },
    spec: taints ? { taints } : {},
    status: { conditions },
  };
}

/** The tolerations the apiserver adds by default (DefaultTolerationSeconds). */
export const defaultTolerations: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

export function podOn(node: string, opts: { name?: string; tolerations?: Toleration[]; ready?: 'True' | 'False' | 'none'; deleting?: boolean } = {}): Pod {
  const { name = 'web', tolerations = defaultTolerations, ready = 'True' } = opts;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '3', ...(opts.deleting ? { deletionTimestamp: iso(T0) } : {}) },
    spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: node, tolerations },
    status: {
      phase: 'Running',
      conditions: ready === 'none' ? [] : [
        { type: 'ContainersReady', status: ready, lastTransitionTime: iso(T0 - 60 * S) },
        { type: 'Ready', status: ready, lastTransitionTime: iso(T0 - 60 * S) },
      ],
    },
  };
}
