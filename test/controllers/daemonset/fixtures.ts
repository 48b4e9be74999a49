import { CONTROLLER_REVISION_HASH_LABEL, type ControllerRevision, type DaemonSet, type DaemonSetSpec } from '../../../shared/daemonset-types.js';
import type { Node, Pod, Taint } from '../../../shared/types.js';
import { newRevision } from '../../../cloud/controllers/daemonset/history.js';

/** Objects for DaemonSet plan tests: times are seconds after T0. */
export const T0 = Date.UTC(2026, 0, 1);
export const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function ds(spec: Partial<DaemonSetSpec> = {}, image = 'agent:1', generation = 1): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name: 'agent', namespace: 'default', uid: 'uid-agent', generation, resourceVersion: '10', creationTimestamp: at(0),
      annotations: { 'deprecated.daemonset.template.generation': String(generation) },
    },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      ...spec,
    },
  };
}

/** A DaemonSet `agent` as a user would create it (no server-set fields). */
export function newAgent(strategy?: DaemonSetSpec['updateStrategy']): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'kedge.io/agent:1' }] } },
      ...(strategy ? { updateStrategy: strategy } : {}),
    },
  };
}

export function node(name: string, o: { labels?: Record<string, string>; taints?: Taint[] } = {}): Node {
  return { metadata: { name, labels: o.labels ?? {} }, spec: { taints: o.taints ?? [] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
}

/** The revision a DaemonSet's current template is at (number `n`). */
export function revisionOf(d: DaemonSet, n: number): ControllerRevision {
  return { ...newRevision(d, n), metadata: { ...newRevision(d, n).metadata, uid: `uid-rev-${n}`, resourceVersion: '3' } };
}

export const hashOf = (r: ControllerRevision): string => r.metadata.labels![CONTROLLER_REVISION_HASH_LABEL]!;

export interface PodOptions {
  hash: string;
  readyAt?: number;
  createdAt?: number;
  deleting?: boolean;
  phase?: 'Pending' | 'Running' | 'Failed';
  /** Bound (nodeName) rather than only pinned by affinity. */
  bound?: boolean;
}

export function daemonPodOn(nodeName: string, name: string, o: PodOptions): Pod {
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5', creationTimestamp: at(o.createdAt ?? 0),
      labels: { app: 'agent', [CONTROLLER_REVISION_HASH_LABEL]: o.hash },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'uid-agent', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [{ name: 'agent' }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] } } },
      ...(o.bound === false ? {} : { nodeName }),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.readyAt === undefined ? [{ type: 'Ready', status: 'False' }] : [{ type: 'Ready', status: 'True', lastTransitionTime: at(o.readyAt) }],
    },
  };
  if (o.deleting) p.metadata.deletionTimestamp = at(1);
  return p;
}
