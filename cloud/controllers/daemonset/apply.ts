import type { ControllerRevision, DaemonSet, DaemonSetStatus } from '../../../shared/daemonset-types.js';
import { isKedgeError, KedgeError } from '../../../shared/errors.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import { adoptPatch, controllerRefTo, releasePatch } from '../controller-ref.js';
import type { EventRecorder } from '../events.js';
import type { Expectations } from '../replicaset/expectations.js';
import { templateOfRevision, type Revisioned } from './history.js';
import { sameTemplate } from '../../client/template-equality.js';
import type { DaemonSetAction } from './plan.js';

/** The thin apply of a DaemonSet pass: API writes, expectations and Events; nothing decided here. */
export interface DaemonSetApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  expectations: Expectations;
  requeueAfter(key: string, ms: number): void;
  /** A failed pod on `node` is being deleted: the node's backoff grows. */
  failedPodDeleted(node: string): void;
}

const dsRef = (ds: DaemonSet, subresource?: string): ResourceRef => ({
  resource: 'daemonsets', group: 'apps', namespace: ds.metadata.namespace, name: ds.metadata.name, ...(subresource ? { subresource } : {}),
});
const revisionRef = (cr: ControllerRevision): ResourceRef => ({ resource: 'controllerrevisions', group: 'apps', namespace: cr.metadata.namespace, name: cr.metadata.name });
const ignoreNotFound = (err: unknown): void => {
  if (!isKedgeError(err, 'NotFound')) throw err;
};

export async function applyDaemonSetActions(deps: DaemonSetApplyDeps, ds: DaemonSet, actions: readonly DaemonSetAction[]): Promise<void> {
  const key = objectKey(ds.metadata);
  await claimObjects(deps, ds, actions);
  // The revision comes first: pods are labelled with its hash.
  for (const action of actions) {
    if (action.type === 'createRevision') await createRevision(deps, ds, action.revision);
    else if (action.type === 'renumberRevision') await deps.api.patch(revisionRef(action.revision), { revision: action.to }, 'merge');
  }
  const creates = actions.flatMap((a) => (a.type === 'create' ? a.pods : []));
  const deletes = actions.flatMap((a) => (a.type === 'delete' ? a.pods : []));
  if (creates.length > 0 || deletes.length > 0) deps.expectations.expect(key, creates.length, deletes.map((p) => p.metadata.uid!));
  const results = await Promise.allSettled([createPods(deps, ds, key, creates), deletePods(deps, ds, key, deletes)]);
  for (const action of actions) {
    if (action.type === 'deleteRevision') await deps.api.delete(revisionRef(action.revision)).catch(ignoreNotFound);
    else if (action.type === 'status') await writeStatus(deps, ds, action.status);
    else if (action.type === 'requeueAfter') deps.requeueAfter(key, action.ms);
    else if (action.type === 'failedPodBackoff') action.nodes.forEach((node) => deps.failedPodDeleted(node));
  }
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Adopts and releases pods and revisions; adoption first checks the DaemonSet afresh (client-go's canAdopt). */
async function claimObjects(deps: DaemonSetApplyDeps, ds: DaemonSet, actions: readonly DaemonSetAction[]): Promise<void> {
  const claims = actions.flatMap((a) => (a.type === 'adopt' || a.type === 'release' ? [a] : []));
  if (claims.some((a) => a.type === 'adopt')) {
    const fresh = await deps.api.get<DaemonSet>(dsRef(ds));
    if (fresh.metadata.uid !== ds.metadata.uid || fresh.metadata.deletionTimestamp) {
      throw new KedgeError('Conflict', `daemonset ${objectKey(ds.metadata)} changed (uid or deletion) before adopting`);
    }
  }
  const ref = controllerRefTo(ds, 'apps/v1', 'DaemonSet');
  for (const { type, object, resource } of claims) {
    const patch = type === 'adopt' ? adoptPatch(object, ref) : releasePatch(object, ds.metadata.uid!);
    const group = resource === 'pods' ? {} : { group: 'apps' };
    await deps.api.patch({ resource, ...group, namespace: object.metadata.namespace, name: object.metadata.name }, patch, 'merge').catch(ignoreNotFound);
  }
}

/** snapshot: a name taken by another template is a hash collision: count it in status and try again with a new hash. */
async function createRevision(deps: DaemonSetApplyDeps, ds: DaemonSet, revision: ControllerRevision): Promise<void> {
  await createRevisionOrCollide(deps.api, ds, revision, async () => {
    await writeStatus(deps, ds, { ...ds.status, collisionCount: (ds.status?.collisionCount ?? 0) + 1 } as DaemonSetStatus);
    return `daemonset ${objectKey(ds.metadata)}`;
  });
}

/** Creates `revision`; a name already taken by another template calls `bumpCollisionCount` and fails with a Conflict (the next pass hashes anew). */
export async function createRevisionOrCollide(api: ApiClient, owner: Revisioned, revision: ControllerRevision, bumpCollisionCount: () => Promise<string>): Promise<void> {
  try {
    await api.create(revisionRef(revision), revision);
    return;
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists')) throw err;
  }
  const existing = await api.get<ControllerRevision>(revisionRef(revision));
  const template = templateOfRevision(existing);
  const ours = existing.metadata.ownerReferences?.some((r) => r.controller && r.uid === owner.metadata.uid);
  if (ours && template && sameTemplate(template, owner.spec.template)) return;
  const what = await bumpCollisionCount();
  throw new KedgeError('Conflict', `found a hash collision for ${what}: bumped collisionCount`);
}

/** Creates in batches of 1, 2, 4, … (slow start), stopping at the first failing batch. */
async function createPods(deps: DaemonSetApplyDeps, ds: DaemonSet, key: string, pods: readonly Pod[]): Promise<void> {
  let next = 0;
  let failure: unknown;
  for (let batch = 1; next < pods.length && failure === undefined; batch *= 2) {
    const slice = pods.slice(next, next + batch);
    next += slice.length;
    const results = await Promise.allSettled(slice.map((body) => deps.api.create<Pod>({ resource: 'pods', namespace: ds.metadata.namespace }, body)));
    for (const r of results) {
      if (r.status === 'fulfilled') deps.events.record(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata.name}`);
      else {
        deps.expectations.creationObserved(key);
        failure ??= r.reason;
        deps.events.record(ds, 'Warning', 'FailedCreate', `Error creating: ${String((r.reason as Error).message ?? r.reason)}`);
      }
    }
  }
  // Pods never created will never be seen: stop expecting them.
  for (let i = next; i < pods.length; i++) deps.expectations.creationObserved(key);
  if (failure !== undefined) throw failure;
}

async function deletePods(deps: DaemonSetApplyDeps, ds: DaemonSet, key: string, pods: readonly Pod[]): Promise<void> {
  const failures = await Promise.all(
    pods.map(async (pod) => {
      const { namespace, name, uid } = pod.metadata;
      if (pod.status?.phase === 'Failed') {
        deps.events.record(ds, 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${namespace}/${name} on node ${pod.spec.nodeName ?? ''}, will try to kill it`);
      }
      try {
        await deps.api.delete({ resource: 'pods', namespace, name }, { preconditions: { uid } });
        deps.events.record(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
        return undefined;
      } catch (err) {
        deps.expectations.deletionObserved(key, uid!);
        if (isKedgeError(err, 'NotFound') || isKedgeError(err, 'Conflict')) return undefined;
        deps.events.record(ds, 'Warning', 'FailedDelete', `Error deleting: ${String((err as Error).message ?? err)}`);
        return err;
      }
    }),
  );
  const failure = failures.find((f) => f !== undefined);
  if (failure !== undefined) throw failure;
}

/** Writes status with compare-and-set; on a Conflict, once more onto the fresh object. */
async function writeStatus(deps: DaemonSetApplyDeps, ds: DaemonSet, status: DaemonSetStatus): Promise<void> {
  try {
    await deps.api.replace(dsRef(ds, 'status'), { ...ds, status });
  } catch (err) {
    if (!isKedgeError(err, 'Conflict')) throw err;
    const fresh = await deps.api.get<DaemonSet>(dsRef(ds));
    await deps.api.replace(dsRef(ds, 'status'), { ...fresh, status: { ...status, collisionCount: fresh.status?.collisionCount ?? status.collisionCount } });
  }
}
