import type { ControllerRevision, DaemonSet, DaemonSetStatus } from '../../../shared/daemonset-types.js';
import { scaledMs, type Timing } from '../../../shared/timing.js';
import type { Node, Pod } from '../../../shared/types.js';
import { claim, type Claim } from '../controller-ref.js';
import { nextAvailableIn } from '../replicaset/pod-state.js';
import { daemonPod } from './daemon-pod.js';
import { planHistory, staleRevisions, type HistoryAction } from './history.js';
import { manageNodes, podsByNode, type ManageInput, type NodeChanges } from './manage.js';
import { rollingUpdate } from './rolling.js';
import { daemonSetStatus, sameDaemonSetStatus } from './status.js';

/** Most pods created or deleted in one pass (kube's burstReplicas). */
export const BURST_PODS = 250;

export type ClaimAction = { type: 'adopt' | 'release'; object: Pod | ControllerRevision; resource: 'pods' | 'controllerrevisions' };

export type DaemonSetAction =
  | ClaimAction
  | HistoryAction
  /** Create these pods (each pinned to its node). */
  | { type: 'create'; pods: Pod[] }
  | { type: 'delete'; pods: Pod[] }
  /** Failed pods on these nodes are being deleted: each node's backoff grows. */
  | { type: 'failedPodBackoff'; nodes: string[] }
  | { type: 'status'; status: DaemonSetStatus }
  /** Look again later: a ready pod becomes available after minReadySeconds. */
  | { type: 'requeueAfter'; ms: number };

export interface DaemonSetPlanInput {
  ds: DaemonSet;
  /** Every pod and ControllerRevision in the DaemonSet's namespace, as the informers show them. */
  pods: readonly Pod[];
  revisions: readonly ControllerRevision[];
  nodes: readonly Node[];
  /** False while creations or deletions asked for earlier have not been seen yet. */
  expectationsSatisfied: boolean;
  now: number;
  timing: Pick<Timing, 'timeScale'>;
  /** Milliseconds before a failed pod on `node` may be deleted (the controller's per-node backoff). */
  failedBackoffMs?(node: string): number | undefined;
}

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/**
 * One pass of the DaemonSet controller (syncDaemonSet): claim pods and revisions, settle the
 * current revision, then (when earlier writes were all seen) the manage loop, a rolling-update
 * step if the manage loop had nothing to do, history clean-up, and status. Pure.
 */
export function planDaemonSet(input: DaemonSetPlanInput): DaemonSetAction[] {
  const { ds, now } = input;
  if (ds.metadata.deletionTimestamp) return [];
  const selector = ds.spec.selector;
  const pods = claim(ds, selector, input.pods.filter((p) => !(p.metadata.deletionTimestamp && isTerminal(p))));
  const revisions = claim(ds, selector, input.revisions);
  const actions: DaemonSetAction[] = claimActions(pods, revisions);
  const history = planHistory(ds, revisions.claimed);
  actions.push(...history.actions);
  const byNode = podsByNode(pods.claimed);
  const minReadyMs = scaledMs(input.timing, ds.spec.minReadySeconds ?? 0);
  const base = { ds, nodes: input.nodes, byNode, hash: history.hash, minReadyMs, now };
  if (input.expectationsSatisfied) {
    const changes = podChanges({ ...base, failedBackoffMs: input.failedBackoffMs });
    if (changes.create.length > 0) actions.push({ type: 'create', pods: changes.create.slice(0, BURST_PODS).map((node) => daemonPod(ds, node, history.hash)) });
    if (changes.delete.length > 0) actions.push({ type: 'delete', pods: changes.delete.slice(0, BURST_PODS) });
    if (changes.failedOn?.length) actions.push({ type: 'failedPodBackoff', nodes: changes.failedOn });
    if (changes.retryInMs !== undefined) actions.push({ type: 'requeueAfter', ms: changes.retryInMs });
    actions.push(...staleRevisions(ds, history.old, pods.claimed).map((revision) => ({ type: 'deleteRevision' as const, revision })));
  }
  const status = daemonSetStatus({ ...base, observed: input.expectationsSatisfied });
  if (!sameDaemonSetStatus(status, ds.status)) actions.push({ type: 'status', status });
  const wait = nextAvailableIn(pods.claimed, minReadyMs, now);
  if (wait !== undefined) actions.push({ type: 'requeueAfter', ms: wait });
  return actions;
}

/** Adopting and releasing the pods and revisions a claim sorted out (DaemonSets and StatefulSets alike). */
export function claimActions(pods: Claim<Pod>, revisions: Claim<ControllerRevision>): ClaimAction[] {
  return [
    ...pods.adopt.map((object) => ({ type: 'adopt' as const, object, resource: 'pods' as const })),
    ...pods.release.map((object) => ({ type: 'release' as const, object, resource: 'pods' as const })),
    ...revisions.adopt.map((object) => ({ type: 'adopt' as const, object, resource: 'controllerrevisions' as const })),
    ...revisions.release.map((object) => ({ type: 'release' as const, object, resource: 'controllerrevisions' as const })),
  ];
}

/** The manage loop's changes; when it has none, a rolling-update step's (RollingUpdate only; OnDelete waits for deletions). */
function podChanges(base: Omit<ManageInput, 'allowSurge'>): NodeChanges {
  const strategy = base.ds.spec.updateStrategy;
  const rolling = strategy?.type !== 'OnDelete';
  const allowSurge = rolling && rollingSurge(base.ds);
  const managed = manageNodes({ ...base, allowSurge });
  if (managed.create.length > 0 || managed.delete.length > 0 || !rolling) return managed;
  return { ...rollingUpdate(base), retryInMs: managed.retryInMs };
}

const rollingSurge = (ds: DaemonSet): boolean => {
  const surge = ds.spec.updateStrategy?.rollingUpdate?.maxSurge;
  return surge !== undefined && surge !== 0 && surge !== '0%';
};
