import type { ReplicaSet } from '../../../shared/apps-types.js';
import type { Node, Pod } from '../../../shared/types.js';

/** Objects for ReplicaSet plan tests: times are seconds after T0. */
export const T0 = Date.UTC(2026, 0, 1);
export const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function rs(name: string, replicas: number, extra: Partial<ReplicaSet['spec']> = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, generation: 1, resourceVersion: '10', creationTimestamp: at(0) },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
      ...extra,
    },
  };
}

export interface PodOptions {
  owner?: ReplicaSet | string | null;
  labels?: Record<string, string>;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  /** Seconds after T0 the pod became Ready; absent = not ready. */
  readyAt?: number;
  node?: string;
  createdAt?: number;
  deleting?: boolean;
  restarts?: number;
}

export function pod(name: string, o: PodOptions = {}): Pod {
  const ownerUid = o.owner === null ? undefined : typeof o.owner === 'string' ? o.owner : (o.owner?.metadata.uid ?? 'uid-web');
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '5',
      creationTimestamp: at(o.createdAt ?? 0),
      labels: o.labels ?? { app: 'web', tier: 'front' },
    },
    spec: { containers: [{ name: 'app' }], ...(o.node ? { nodeName: o.node } : {}) },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.readyAt === undefined ? [{ type: 'Ready', status: 'False' }] : [{ type: 'Ready', status: 'True', lastTransitionTime: at(o.readyAt) }],
      containerStatuses: o.restarts ? [{ name: 'app', ready: true, restartCount: o.restarts, image: '', imageID: '', state: {}, lastState: {} }] : [],
    },
  };
  if (ownerUid) p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: ownerUid, controller: true, blockOwnerDeletion: true }];
  if (o.deleting) p.metadata.deletionTimestamp = at(1);
  return p;
}

export function nodes(ready: Record<string, 'True' | 'False' | 'Unknown'>): Map<string, Node> {
  return new Map(Object.entries(ready).map(([name, status]) => [name, { metadata: { name }, status: { conditions: [{ type: 'Ready', status }] } }]));
}
