import type { DaemonSetStatus } from '../../../shared/daemonset-types.js';
import { isPodAvailable, isPodReady } from '../replicaset/pod-state.js';
import { isPodUpdated, templateGeneration } from './daemon-pod.js';
import { byAge } from './manage.js';
import { nodeShouldRunDaemonPod } from './node-fit.js';
import type { RollingInput } from './rolling.js';

export interface StatusInput extends RollingInput {
  /** False while earlier writes are unseen: observedGeneration stays as it was. */
  observed: boolean;
}

/** updateDaemonSetStatus: per node that wants a pod, whether its oldest pod is there, ready, available and current. Pure. */
export function daemonSetStatus(input: StatusInput): DaemonSetStatus {
  const { ds } = input;
  const generation = templateGeneration(ds);
  const counts = { desired: 0, current: 0, ready: 0, available: 0, updated: 0, misscheduled: 0 };
  for (const node of input.nodes) {
    const pods = input.byNode.get(node.metadata.name ?? '') ?? [];
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) {
      if (pods.length > 0) counts.misscheduled++;
      continue;
    }
    counts.desired++;
    const pod = byAge(pods)[0];
    if (!pod) continue;
    counts.current++;
    if (isPodReady(pod)) {
      counts.ready++;
      if (isPodAvailable(pod, input.minReadyMs, input.now)) counts.available++;
    }
    if (isPodUpdated(pod, input.hash, generation)) counts.updated++;
  }
  const status: DaemonSetStatus = {
    currentNumberScheduled: counts.current,
    numberMisscheduled: counts.misscheduled,
    desiredNumberScheduled: counts.desired,
    numberReady: counts.ready,
    observedGeneration: input.observed ? (ds.metadata.generation ?? 0) : ds.status?.observedGeneration,
    updatedNumberScheduled: counts.updated,
    numberAvailable: counts.available,
    numberUnavailable: counts.desired - counts.available,
  };
  if (ds.status?.collisionCount !== undefined) status.collisionCount = ds.status.collisionCount;
  if (ds.status?.conditions?.length) status.conditions = ds.status.conditions;
  return status;
}

const FIELDS = ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount'] as const;

export function sameDaemonSetStatus(a: DaemonSetStatus | undefined, b: DaemonSetStatus | undefined): boolean {
  return FIELDS.every((f) => (a?.[f] ?? 0) === (b?.[f] ?? 0));
}
