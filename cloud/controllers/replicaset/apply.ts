import type { ReplicaSet, ReplicaSetStatus } from '../../../shared/apps-types.js';
import { isKedgeError, KedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import type { EventRecorder } from '../events.js';
import { adoptPatch, controllerRefTo, releasePatch } from '../controller-ref.js';
import type { Expectations } from './expectations.js';
import { podFromTemplate, type ReplicaSetAction } from './plan.js';

/** The thin apply of a ReplicaSet pass: API writes, expectations and Events; nothing decided here. */
export interface ReplicaSetApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  logger: Logger;
  expectations: Expectations;
  requeueAfter(key: string, ms: number): void;
}

export const rsRef = (rs: ReplicaSet, subresource?: string): ResourceRef => ({
  resource: 'replicasets', group: 'apps', namespace: rs.metadata.namespace, name: rs.metadata.name, ...(subresource ? { subresource } : {}),
});

export async function applyReplicaSetActions(deps: ReplicaSetApplyDeps, rs: ReplicaSet, actions: readonly ReplicaSetAction[]): Promise<void> {
  const key = objectKey(rs.metadata);
  await claimPods(deps, rs, actions);
  let failure: unknown;
  for (const action of actions) {
    try {
      if (action.type === 'create') await createPods(deps, rs, key, action.count);
      else if (action.type === 'delete') await deletePods(deps, rs, key, action.pods);
      else if (action.type === 'status') await writeStatus(deps, rs, action.status);
      else if (action.type === 'requeueAfter') deps.requeueAfter(key, action.ms);
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
}

/** Adopts and releases pods; adoption first checks the ReplicaSet afresh (client-go's canAdopt). */
async function claimPods(deps: ReplicaSetApplyDeps, rs: ReplicaSet, actions: readonly ReplicaSetAction[]): Promise<void> {
  const claims = actions.filter((a) => a.type === 'adopt' || a.type === 'release');
  if (claims.some((a) => a.type === 'adopt')) {
    const fresh = await deps.api.get<ReplicaSet>(rsRef(rs));
    if (fresh.metadata.uid !== rs.metadata.uid || fresh.metadata.deletionTimestamp) {
      throw new KedgeError('Conflict', `replicaset ${objectKey(rs.metadata)} changed (uid or deletion) before adopting pods`);
    }
  }
  const ref = controllerRefTo(rs, 'apps/v1', 'ReplicaSet');
  for (const action of claims) {
    const pod = action.pod;
    const patch = action.type === 'adopt' ? adoptPatch(pod, ref) : releasePatch(pod, rs.metadata.uid!);
    try {
      await deps.api.patch({ resource: 'pods', namespace: pod.metadata.namespace, name: pod.metadata.name }, patch, 'merge');
    } catch (err) {
      if (!isKedgeError(err, 'NotFound')) throw err;
    }
  }
}

/** Creates in batches of 1, 2, 4, … (slow start), stopping at the first failing batch. */
async function createPods(deps: ReplicaSetApplyDeps, rs: ReplicaSet, key: string, count: number): Promise<void> {
  deps.expectations.expectCreations(key, count);
  let remaining = count;
  let unseen = 0;
  let failure: unknown;
  for (let batch = 1; remaining > 0 && failure === undefined; batch *= 2) {
    const size = Math.min(batch, remaining);
    remaining -= size;
    const body = podFromTemplate(rs);
    const results = await Promise.allSettled(Array.from({ length: size }, () => deps.api.create<Pod>({ resource: 'pods', namespace: rs.metadata.namespace }, body)));
    for (const r of results) {
      if (r.status === 'fulfilled') deps.events.record(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
      else {
        unseen++;
        failure ??= r.reason;
        deps.events.record(rs, 'Warning', 'FailedCreate', `Error creating: ${String((r.reason as Error).message ?? r.reason)}`);
      }
    }
  }
  // Pods never created will never be seen: stop expecting them.
  for (let i = 0; i < unseen + remaining; i++) deps.expectations.creationObserved(key);
  if (failure !== undefined) throw failure;
}

async function deletePods(deps: ReplicaSetApplyDeps, rs: ReplicaSet, key: string, pods: readonly Pod[]): Promise<void> {
  deps.expectations.expectDeletions(key, pods.map((p) => p.metadata.uid!));
  let failure: unknown;
  await Promise.all(
    pods.map(async (pod) => {
      const { namespace, name, uid } = pod.metadata;
      try {
        await deps.api.delete({ resource: 'pods', namespace, name }, { preconditions: { uid } });
        deps.events.record(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
      } catch (err) {
        deps.expectations.deletionObserved(key, uid!);
        if (isKedgeError(err, 'NotFound') || isKedgeError(err, 'Conflict')) return;
        failure ??= err;
        deps.events.record(rs, 'Warning', 'FailedDelete', `Error deleting: ${String((err as Error).message ?? err)}`);
      }
    }),
  );
  if (failure !== undefined) throw failure;
}

/** Writes status with compare-and-set; on a Conflict, once more onto the fresh object. */
async function writeStatus(deps: ReplicaSetApplyDeps, rs: ReplicaSet, status: ReplicaSetStatus): Promise<void> {
  try {
    await deps.api.replace(rsRef(rs, 'status'), { ...rs, status });
  } catch (err) {
    if (!isKedgeError(err, 'Conflict')) throw err;
    const fresh = await deps.api.get<ReplicaSet>(rsRef(rs));
    await deps.api.replace(rsRef(rs, 'status'), { ...fresh, status });
  }
}
