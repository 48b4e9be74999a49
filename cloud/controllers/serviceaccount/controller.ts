import { isKedgeError } from '../../../shared/errors.js';
import type { KubeObject, Namespace } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { planNamespaceObject } from './plan.js';

/** One object every namespace holds, kept by a controller: which kind, its name, and what it should be. */
export interface NamespaceObjectSpec {
  controller: string;
  resource: string;
  name: string;
  desired(namespace: string): KubeObject | undefined;
  /** Whether the stored object is as it should be (else it is updated). */
  current(existing: KubeObject, desired: KubeObject): boolean;
}

/** A controller that keeps `spec`'s object in every active namespace, made again when deleted or changed. Queue keys are namespace names. */
export function namespaceObjectController(spec: NamespaceObjectSpec): Controller {
  return { name: spec.controller, start: (ctx) => start(ctx, spec) };
}

async function start(ctx: ControllerContext, spec: NamespaceObjectSpec): Promise<RunningController> {
  const { api, clock } = ctx;
  const logger = ctx.logger.child(spec.controller);
  const reconcile = async (namespace: string): Promise<void> => {
    const desired = spec.desired(namespace);
    if (!desired) return;
    const ref: ResourceRef = { resource: spec.resource, namespace, name: spec.name };
    const ns = await api.get<Namespace>({ resource: 'namespaces', name: namespace }).catch(absent);
    const existing = await api.get<KubeObject>(ref).catch(absent);
    const action = planNamespaceObject(ns, existing, desired, (e) => spec.current(e, desired));
    if (action.type === 'create') await create(api, { resource: spec.resource, namespace }, action.object);
    else if (action.type === 'update') await api.replace(ref, action.object);
    if (action.type !== 'none') logger.info(`${action.type === 'create' ? 'created' : 'updated'} ${spec.resource}/${spec.name}`, { namespace });
  };
  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: 100, maxMs: 10_000 } });
  await loop.start([
    source(ctx.informers.of<Namespace>({ resource: 'namespaces' }), (e) => {
      if (e.type === 'ADDED' || e.type === 'MODIFIED') loop.queue.add(e.object.metadata.name!);
    }),
    source(ctx.informers.of<KubeObject>({ resource: spec.resource }), (e) => {
      if (e.type !== 'SYNCED' && e.object.metadata.name === spec.name) loop.queue.add(e.object.metadata.namespace!);
    }),
  ]);
  return { close: () => loop.close() };
}

function absent(err: unknown): undefined {
  if (isKedgeError(err, 'NotFound')) return undefined;
  throw err;
}

async function create(api: ApiClient, ref: ResourceRef, object: KubeObject): Promise<void> {
  await api.create(ref, object).catch((err: unknown) => {
    // Namespace being deleted meanwhile, or made by another cloud: nothing to do.
    if (!isKedgeError(err, 'AlreadyExists') && !isKedgeError(err, 'Forbidden')) throw err;
  });
}
