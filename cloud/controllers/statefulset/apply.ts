import type { ControllerRevision } from '../../../shared/daemonset-types.js';
import { isKedgeError, KedgeError } from '../../../shared/errors.js';
import type { StatefulSet, StatefulSetStatus } from '../../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import { adoptPatch, controllerRefTo, releasePatch } from '../controller-ref.js';
import { createRevisionOrCollide } from '../daemonset/apply.js';
import type { EventRecorder } from '../events.js';
import type { StatefulSetAction } from './plan.js';

/** The thin apply of a StatefulSet pass: API writes and kube's Events, in the plan's order; nothing decided here. */
export interface StatefulSetApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  requeueAfter(key: string, ms: number): void;
}

const stsRef = (sts: StatefulSet, subresource?: string): ResourceRef => ({
  resource: 'statefulsets', group: 'apps', namespace: sts.metadata.namespace, name: sts.metadata.name, ...(subresource ? { subresource } : {}),
});
const revisionRef = (cr: ControllerRevision): ResourceRef => ({ resource: 'controllerrevisions', group: 'apps', namespace: cr.metadata.namespace, name: cr.metadata.name });
const claimRef = (claim: PersistentVolumeClaim): ResourceRef => ({ resource: 'persistentvolumeclaims', namespace: claim.metadata.namespace, name: claim.metadata.name });
const ignoreNotFound = (err: unknown): void => {
  if (!isKedgeError(err, 'NotFound')) throw err;
};

export async function applyStatefulSetActions(deps: StatefulSetApplyDeps, sts: StatefulSet, actions: readonly StatefulSetAction[]): Promise<void> {
  const { api } = deps;
  if (actions.some((a) => a.type === 'adopt')) await checkCanAdopt(api, sts);
  for (const action of actions) {
    switch (action.type) {
      case 'adopt':
      case 'release': {
        const patch = action.type === 'adopt' ? adoptPatch(action.object, controllerRefTo(sts, 'apps/v1', 'StatefulSet')) : releasePatch(action.object, sts.metadata.uid!);
        const group = action.resource === 'pods' ? {} : { group: 'apps' };
        await api.patch({ resource: action.resource, ...group, namespace: action.object.metadata.namespace, name: action.object.metadata.name }, patch, 'merge').catch(ignoreNotFound);
        break;
      }
      case 'createRevision':
        await createRevisionOrCollide(api, sts, action.revision, () => bumpCollisionCount(deps, sts));
        break;
      case 'renumberRevision':
        await api.patch(revisionRef(action.revision), { revision: action.to }, 'merge');
        break;
      case 'deleteRevision':
        await api.delete(revisionRef(action.revision)).catch(ignoreNotFound);
        break;
      case 'claimOwners':
        await api.patch(claimRef(action.claim), { metadata: { resourceVersion: action.claim.metadata.resourceVersion, ownerReferences: action.ownerReferences } }, 'merge').catch(ignoreNotFound);
        break;
      case 'create':
        await createClaims(deps, sts, action.pod, action.claims);
        await createPod(deps, sts, action.pod);
        break;
      case 'createClaims':
        await createClaims(deps, sts, action.pod, action.claims);
        break;
      case 'delete':
        await deletePod(deps, sts, action.pod);
        break;
      case 'status':
        await writeStatus(api, sts, action.status);
        break;
      case 'requeueAfter':
        deps.requeueAfter(objectKey(sts.metadata), action.ms);
        break;
    }
  }
}

/** client-go's canAdopt: the set read afresh must be the same one, and not being deleted. */
async function checkCanAdopt(api: ApiClient, sts: StatefulSet): Promise<void> {
  const fresh = await api.get<StatefulSet>(stsRef(sts));
  if (fresh.metadata.uid !== sts.metadata.uid || fresh.metadata.deletionTimestamp) {
    throw new KedgeError('Conflict', `statefulset ${objectKey(sts.metadata)} changed (uid or deletion) before adopting`);
  }
}

/** createPersistentVolumeClaims: a claim already there (a stale cache) is fine. */
async function createClaims(deps: StatefulSetApplyDeps, sts: StatefulSet, pod: Pod, claims: readonly PersistentVolumeClaim[]): Promise<void> {
  const where = `Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name}`;
  for (const claim of claims) {
    try {
      await deps.api.create(claimRef(claim), claim);
      deps.events.record(sts, 'Normal', 'SuccessfulCreate', `create Claim ${claim.metadata.name} ${where} success`);
    } catch (err) {
      if (isKedgeError(err, 'AlreadyExists')) continue;
      deps.events.record(sts, 'Warning', 'FailedCreate', `create Claim ${claim.metadata.name} for ${where} failed error: ${(err as Error).message}`);
      throw err;
    }
  }
}

async function createPod(deps: StatefulSetApplyDeps, sts: StatefulSet, pod: Pod): Promise<void> {
  const what = `Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name}`;
  try {
    await deps.api.create({ resource: 'pods', namespace: sts.metadata.namespace }, pod);
    deps.events.record(sts, 'Normal', 'SuccessfulCreate', `create ${what} successful`);
  } catch (err) {
    if (isKedgeError(err, 'AlreadyExists')) return;
    deps.events.record(sts, 'Warning', 'FailedCreate', `create ${what} failed error: ${(err as Error).message}`);
    throw err;
  }
}

async function deletePod(deps: StatefulSetApplyDeps, sts: StatefulSet, pod: Pod): Promise<void> {
  const { namespace, name, uid } = pod.metadata;
  const what = `Pod ${name} in StatefulSet ${sts.metadata.name}`;
  try {
    await deps.api.delete({ resource: 'pods', namespace, name }, { preconditions: { uid } });
    deps.events.record(sts, 'Normal', 'SuccessfulDelete', `delete ${what} successful`);
  } catch (err) {
    if (isKedgeError(err, 'NotFound') || isKedgeError(err, 'Conflict')) return;
    deps.events.record(sts, 'Warning', 'FailedDelete', `delete ${what} failed error: ${(err as Error).message}`);
    throw err;
  }
}

async function bumpCollisionCount(deps: StatefulSetApplyDeps, sts: StatefulSet): Promise<string> {
  await writeStatus(deps.api, sts, { ...sts.status, replicas: sts.status?.replicas ?? 0, collisionCount: (sts.status?.collisionCount ?? 0) + 1 });
  return `statefulset ${objectKey(sts.metadata)}`;
}

/** Writes status with compare-and-set; on a Conflict, once more onto the fresh object. */
async function writeStatus(api: ApiClient, sts: StatefulSet, status: StatefulSetStatus): Promise<void> {
  try {
    await api.replace(stsRef(sts, 'status'), { ...sts, status });
  } catch (err) {
    if (!isKedgeError(err, 'Conflict')) throw err;
    const fresh = await api.get<StatefulSet>(stsRef(sts));
    await api.replace(stsRef(sts, 'status'), { ...fresh, status: { ...status, collisionCount: fresh.status?.collisionCount ?? status.collisionCount } });
  }
}
