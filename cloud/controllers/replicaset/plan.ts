import type { ReplicaSet, ReplicaSetStatus } from '../../../shared/apps-types.js';
import { scaledMs, type Timing } from '../../../shared/timing.js';
import type { Node, Pod } from '../../../shared/types.js';
import { claim, controllerRefTo } from '../controller-ref.js';
import { isPodActive, nextAvailableIn } from './pod-state.js';
import { podsToDelete } from './rank.js';
import { replicaSetStatus, sameReplicaSetStatus } from './status.js';

/** Most pods created or deleted in one pass (kube's burstReplicas). */
export const BURST_REPLICAS = 500;

export type ReplicaSetAction =
  | { type: 'adopt'; pod: Pod }
  | { type: 'release'; pod: Pod }
  | { type: 'create'; count: number }
  | { type: 'delete'; pods: Pod[] }
  | { type: 'status'; status: ReplicaSetStatus }
  /** Look again later: a ready pod becomes available after minReadySeconds. */
  | { type: 'requeueAfter'; ms: number };

export interface ReplicaSetPlanInput {
  rs: ReplicaSet;
  /** Every pod in the ReplicaSet's namespace, as the informer shows them. */
  pods: readonly Pod[];
  nodes: ReadonlyMap<string, Node>;
  /** False while creations or deletions asked for earlier have not been seen yet. */
  expectationsSatisfied: boolean;
  now: number;
  timing: Pick<Timing, 'timeScale'>;
}

/**
 * One pass of the ReplicaSet controller (syncReplicaSet): claim pods, create or delete the
 * difference to spec.replicas (only when earlier writes were all seen), report status. Pure.
 */
export function planReplicaSet(input: ReplicaSetPlanInput): ReplicaSetAction[] {
  const { rs, now } = input;
  const active = input.pods.filter(isPodActive);
  const { claimed, adopt, release } = claim(rs, rs.spec.selector, active);
  const actions: ReplicaSetAction[] = [
    ...adopt.map((pod) => ({ type: 'adopt' as const, pod })),
    ...release.map((pod) => ({ type: 'release' as const, pod })),
  ];
  if (input.expectationsSatisfied && !rs.metadata.deletionTimestamp) {
    const diff = claimed.length - (rs.spec.replicas ?? 1);
    if (diff < 0) actions.push({ type: 'create', count: Math.min(-diff, BURST_REPLICAS) });
    if (diff > 0) actions.push({ type: 'delete', pods: podsToDelete(claimed, input.nodes, Math.min(diff, BURST_REPLICAS)) });
  }
  const minReadyMs = scaledMs(input.timing, rs.spec.minReadySeconds ?? 0);
  const status = replicaSetStatus(rs, claimed, minReadyMs, now);
  if (!sameReplicaSetStatus(status, rs.status)) actions.push({ type: 'status', status });
  const wait = nextAvailableIn(claimed, minReadyMs, now);
  if (wait !== undefined) actions.push({ type: 'requeueAfter', ms: wait });
  return actions;
}

/** The pod a ReplicaSet creates: its template, named `<rs>-xxxxx`, controlled by the ReplicaSet. */
export function podFromTemplate(rs: ReplicaSet): Pod {
  const template = rs.spec.template;
  const meta = template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata.name}-`,
      namespace: rs.metadata.namespace,
      labels: { ...meta.labels },
      ownerReferences: [controllerRefTo(rs, 'apps/v1', 'ReplicaSet')],
    },
    spec: structuredClone(template.spec),
  };
  if (meta.annotations) pod.metadata.annotations = { ...meta.annotations };
  if (meta.finalizers) pod.metadata.finalizers = [...meta.finalizers];
  return pod;
}
