import { newRevision } from '../../../cloud/controllers/daemonset/history.js';
import { defaultStatefulSet } from '../../../cloud/client/statefulset-defaults.js';
import type { ControllerRevision } from '../../../shared/daemonset-types.js';
import type { StatefulSet, StatefulSetSpec } from '../../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import type { Pod } from '../../../shared/types.js';

/** Objects for StatefulSet plan tests: times are seconds after T0. */
export const T0 = Date.UTC(2026, 0, 1);
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `web` as the apiserver keeps it (defaulted), with `replicas` and a claim template `www`. */
export function sts(spec: Partial<StatefulSetSpec> = {}, image = 'nginx:1'): StatefulSet {
  const set: StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-web', generation: 1, resourceVersion: '10', creationTimestamp: at(0) },
    spec: {
      replicas: 3,
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image }] } },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...spec,
    },
  };
  defaultStatefulSet(set);
  return set;
}

export function revisionOf(set: StatefulSet, n: number): ControllerRevision {
  const r = newRevision(set, n, 'StatefulSet');
  return { ...r, metadata: { ...r.metadata, uid: `uid-rev-${n}`, resourceVersion: '3' } };
}

export interface PodOptions {
  revision: string;
  ready?: boolean;
  phase?: 'Pending' | 'Running' | 'Failed' | 'Succeeded';
  deleting?: boolean;
}

/** Pod `web-<ordinal>` controlled by the set, at `revision`; Running and Ready unless told. */
export function pod(ordinal: number, o: PodOptions): Pod {
  const ready = o.ready ?? true;
  const phase = o.phase ?? (ready ? 'Running' : 'Pending');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${ordinal}`, namespace: 'default', uid: `uid-web-${ordinal}`, resourceVersion: '5',
      labels: { app: 'web', 'controller-revision-hash': o.revision },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web', controller: true }],
      ...(o.deleting ? { deletionTimestamp: at(1) } : {}),
    },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1' }] },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: at(0) }] },
  };
}

export function claimFor(ordinal: number, o: Partial<PersistentVolumeClaim['metadata']> = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1', kind: 'PersistentVolumeClaim',
    metadata: { name: `www-web-${ordinal}`, namespace: 'default', uid: `uid-www-${ordinal}`, resourceVersion: '4', labels: { app: 'web' }, ...o },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
  };
}
