import type { ControllerRevision } from '../../../shared/daemonset-types.js';
import type { StatefulSet, StatefulSetStatus } from '../../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import { scaledMs, type Timing } from '../../../shared/timing.js';
import type { Pod } from '../../../shared/types.js';
import { claim } from '../controller-ref.js';
import { claimActions, type ClaimAction } from '../daemonset/plan.js';
import { planHistory, staleRevisions, templateOfRevision, type HistoryAction } from '../daemonset/history.js';
import { nextAvailableIn } from '../replicaset/pod-state.js';
import { parentAndOrdinal } from './identity.js';
import { planReplicas, type PodAction } from './replicas.js';
import { sameStatefulSetStatus, statefulSetStatus } from './status.js';

export type StatefulSetAction =
  | ClaimAction
  | HistoryAction
  | PodAction
  | { type: 'status'; status: StatefulSetStatus }
  /** Look again later: a ready pod becomes available after minReadySeconds. */
  | { type: 'requeueAfter'; ms: number };

export interface StatefulSetPlanInput {
  sts: StatefulSet;
  /** Every pod, ControllerRevision and PersistentVolumeClaim in the set's namespace, as the informers show them. */
  pods: readonly Pod[];
  revisions: readonly ControllerRevision[];
  claims: readonly PersistentVolumeClaim[];
  now: number;
  timing: Pick<Timing, 'timeScale'>;
}

/**
 * One pass of the StatefulSet controller (syncStatefulSet): claim pods and revisions, settle
 * the update revision, then the pod steps (replicas.ts), history clean-up and status. Pure.
 */
export function planStatefulSet(input: StatefulSetPlanInput): StatefulSetAction[] {
  const { sts, now } = input;
  if (sts.metadata.deletionTimestamp) return [];
  const selector = sts.spec.selector;
  const members = input.pods.filter((p) => parentAndOrdinal(p.metadata.name)?.parent === sts.metadata.name);
  const pods = claim(sts, selector, members);
  const revisions = claim(sts, selector, input.revisions);
  const actions: StatefulSetAction[] = claimActions(pods, revisions);
  const history = planHistory(sts, revisions.claimed, 'StatefulSet');
  actions.push(...history.actions);
  const updateRevision = { name: history.name, template: sts.spec.template };
  const currentRevision = currentOf(sts, revisions.claimed) ?? updateRevision;
  const minReadyMs = scaledMs(input.timing, sts.spec.minReadySeconds ?? 0);
  const byOrdinal = new Map(pods.claimed.map((p) => [parentAndOrdinal(p.metadata.name)!.ordinal, p]));
  const claims = new Map(input.claims.map((c) => [c.metadata.name ?? '', c]));
  actions.push(...planReplicas({ sts, byOrdinal, claims, currentRevision, updateRevision, minReadyMs, now }));
  const kept = history.old.filter((r) => r.metadata.name !== currentRevision.name);
  actions.push(...staleRevisions(sts, kept, pods.claimed).map((revision) => ({ type: 'deleteRevision' as const, revision })));
  const status = statefulSetStatus({ sts, pods: pods.claimed, currentRevision: currentRevision.name, updateRevision: updateRevision.name, minReadyMs, now });
  if (!sameStatefulSetStatus(status, sts.status)) actions.push({ type: 'status', status });
  const wait = nextAvailableIn(pods.claimed, minReadyMs, now);
  if (wait !== undefined) actions.push({ type: 'requeueAfter', ms: wait });
  return actions;
}

/** getStatefulSetRevisions: the revision status.currentRevision names, while it is still kept. */
function currentOf(sts: StatefulSet, revisions: readonly ControllerRevision[]): { name: string; template: StatefulSet['spec']['template'] } | undefined {
  const name = sts.status?.currentRevision;
  const revision = name ? revisions.find((r) => r.metadata.name === name) : undefined;
  const template = revision && templateOfRevision(revision);
  return template ? { name: name!, template } : undefined;
}
