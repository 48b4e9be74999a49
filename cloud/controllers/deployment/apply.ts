import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import { isKedgeError, KedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import { objectKey } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import type { EventRecorder } from '../events.js';
import { adoptPatch, controllerRefOf, controllerRefTo, releasePatch } from '../controller-ref.js';
import { sameTemplate } from './hash.js';
import type { DeploymentAction } from './rollout.js';

/** The thin apply of a Deployment pass: writes in plan order, stopping at the first failure. */
export interface DeploymentApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  logger: Logger;
  requeueAfter(key: string, ms: number): void;
}

const rsRef = (namespace: string | undefined, name?: string): ResourceRef => ({ resource: 'replicasets', group: 'apps', namespace, ...(name ? { name } : {}) });
const deployRef = (d: Deployment, subresource?: string): ResourceRef => ({
  resource: 'deployments', group: 'apps', namespace: d.metadata.namespace, name: d.metadata.name, ...(subresource ? { subresource } : {}),
});
const ignoreNotFound = (err: unknown): void => {
  if (!isKedgeError(err, 'NotFound')) throw err;
};

export async function applyDeploymentActions(deps: DeploymentApplyDeps, d: Deployment, actions: readonly DeploymentAction[]): Promise<void> {
  const { api } = deps;
  if (actions.some((a) => a.type === 'adoptReplicaSet')) await checkCanAdopt(api, d);
  const ref = controllerRefTo(d, 'apps/v1', 'Deployment');
  for (const action of actions) {
    const rsName = 'rs' in action ? action.rs.metadata.name : undefined;
    switch (action.type) {
      case 'adoptReplicaSet':
        await api.patch(rsRef(d.metadata.namespace, rsName), adoptPatch(action.rs, ref)).catch(ignoreNotFound);
        break;
      case 'releaseReplicaSet':
        await api.patch(rsRef(d.metadata.namespace, rsName), releasePatch(action.rs, d.metadata.uid!)).catch(ignoreNotFound);
        break;
      case 'createReplicaSet':
        await createReplicaSet(deps, d, action.rs);
        break;
      case 'updateReplicaSet': {
        const patch = { metadata: { resourceVersion: action.rs.metadata.resourceVersion, annotations: action.annotations }, spec: { replicas: action.replicas } };
        await api.patch(rsRef(d.metadata.namespace, rsName), patch);
        break;
      }
      case 'deleteReplicaSet':
        await api.delete(rsRef(d.metadata.namespace, rsName), { preconditions: { uid: action.rs.metadata.uid } }).catch((err: unknown) => {
          if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
        });
        deps.logger.info('deleted old replicaset', { replicaSet: `${d.metadata.namespace}/${rsName}` });
        break;
      case 'annotateDeployment':
        await api.patch(deployRef(d), { metadata: { annotations: action.annotations } });
        break;
      case 'status':
        await api.replace(deployRef(d, 'status'), { ...d, status: action.status });
        break;
      case 'event':
        deps.events.record(d, action.eventType, action.reason, action.message);
        break;
      case 'requeueAfter':
        deps.requeueAfter(objectKey(d.metadata), action.ms);
        break;
    }
  }
}

/** client-go's canAdopt: the Deployment, read afresh, is still this one and not being deleted. */
async function checkCanAdopt(api: ApiClient, d: Deployment): Promise<void> {
  const fresh = await api.get<Deployment>(deployRef(d));
  if (fresh.metadata.uid !== d.metadata.uid || fresh.metadata.deletionTimestamp) {
    throw new KedgeError('Conflict', `deployment ${objectKey(d.metadata)} changed (uid or deletion) before adopting replica sets`);
  }
}

/**
 * Creates the new ReplicaSet. Its name already taken by our own ReplicaSet of this template
 * means the informer is behind (fine); by anything else, a hash collision: count it in
 * status.collisionCount so that the next pass hashes to another name.
 */
async function createReplicaSet(deps: DeploymentApplyDeps, d: Deployment, rs: ReplicaSet): Promise<void> {
  try {
    await deps.api.create(rsRef(d.metadata.namespace), rs);
    return;
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists')) throw err;
  }
  const existing = await deps.api.get<ReplicaSet>(rsRef(d.metadata.namespace, rs.metadata.name));
  if (controllerRefOf(existing)?.uid === d.metadata.uid && sameTemplate(existing.spec.template, d.spec.template)) return;
  const collisionCount = (d.status?.collisionCount ?? 0) + 1;
  await deps.api.replace(deployRef(d, 'status'), { ...d, status: { ...d.status, collisionCount } });
  throw new KedgeError('Conflict', `replica set ${rs.metadata.name} already exists with another template; collisionCount is now ${collisionCount}`);
}
