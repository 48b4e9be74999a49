import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import { selectorMatches } from '../../../shared/label-selector.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { controllerRefOf } from '../controller-ref.js';
import { controllerKeyIn, ObjectCache } from '../object-cache.js';
import { splitKey } from '../replicaset/controller.js';
import { applyDeploymentActions } from './apply.js';
import { planDeployment } from './plan.js';

export interface DeploymentControllerOptions {
  /** Deployments reconciled at once (default 4). */
  concurrency?: number;
}

/** Rolls Deployments out through ReplicaSets (kube's DeploymentController). */
export function deploymentController(options: DeploymentControllerOptions = {}): Controller {
  return { name: 'deployment', start: (ctx) => startDeploymentController(ctx, options) };
}

async function startDeploymentController(ctx: ControllerContext, options: DeploymentControllerOptions): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('deployment-controller');
  const deployments = new ObjectCache<Deployment>();
  const replicaSets = new ObjectCache<ReplicaSet>();
  const pods = new ObjectCache<Pod>();

  const reconcile = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key);
    const deployment = deployments.get(namespace, name);
    if (!deployment) return;
    const actions = planDeployment({ deployment, replicaSets: replicaSets.list(namespace), pods: pods.list(namespace), now: clock.now(), timing });
    await applyDeploymentActions({ api, events, logger, requeueAfter: (k, ms) => loop.addAfter(k, ms) }, deployment, actions);
  };
  const loop = new ControllerLoop({ clock, logger, reconcile, concurrency: options.concurrency });

  /** The key of the Deployment controlling `obj`, if it is one we know (same uid). */
  const ownerKey = (obj: ReplicaSet | undefined): string | undefined => controllerKeyIn(deployments, 'Deployment', obj);
  const add = (key: string | undefined): void => void (key !== undefined && loop.queue.add(key));
  const addSelecting = (rs: ReplicaSet): void => {
    for (const d of deployments.list(rs.metadata.namespace)) {
      if (selectorMatches(d.spec.selector, rs.metadata.labels)) loop.queue.add(objectKey(d.metadata));
    }
  };

  const onDeployment = (e: CacheEvent<Deployment>): void => {
    deployments.apply(e);
    if (e.type !== 'SYNCED') loop.queue.add(objectKey(e.object.metadata));
  };
  const onReplicaSet = (e: CacheEvent<ReplicaSet>): void => {
    replicaSets.apply(e);
    if (e.type === 'SYNCED') return;
    const key = ownerKey(e.object);
    if (e.type === 'MODIFIED' && ownerKey(e.old) !== key) add(ownerKey(e.old));
    if (key) return add(key);
    if (e.type !== 'DELETED') addSelecting(e.object);
  };
  /** Recreate waits for the old pods to be gone: a pod's deletion may let it go on. */
  const onPod = (e: CacheEvent<Pod>): void => {
    pods.apply(e);
    if (e.type !== 'DELETED' && !(e.type === 'MODIFIED' && isTerminal(e.object))) return;
    const ref = controllerRefOf(e.object);
    if (!ref || ref.kind !== 'ReplicaSet') return;
    const rs = replicaSets.get(e.object.metadata.namespace, ref.name);
    const key = rs?.metadata.uid === ref.uid ? ownerKey(rs) : undefined;
    if (!key) return;
    const { namespace, name } = splitKey(key);
    if (deployments.get(namespace, name)?.spec.strategy?.type === 'Recreate') add(key);
  };

  await loop.start([
    source(ctx.informers.of<Deployment>({ resource: 'deployments', group: 'apps' }), onDeployment),
    source(ctx.informers.of<ReplicaSet>({ resource: 'replicasets', group: 'apps' }), onReplicaSet),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), onPod),
  ]);
  return { close: () => loop.close() };
}

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
