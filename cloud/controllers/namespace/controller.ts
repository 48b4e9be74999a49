import { KedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import type { KubeObject, Namespace } from '../../../shared/types.js';
import type { ApiClient } from '../../client/client.js';
import { isDeleting } from '../../client/deletion.js';
import type { ApiResource } from '../../client/api-resource.js';
import type { Backoff } from '../../informer/key-queue.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ignoreGone } from '../garbage-collector/apply.js';
import { resourceRef } from '../garbage-collector/object-ref.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { planNamespace, type NamespaceAction, type NamespaceContent } from './plan.js';

export interface NamespaceControllerOptions {
  /** Wait before looking again at a namespace that is not empty yet (default 200 ms doubling to 10 s). */
  backoff?: Backoff;
  /** Namespaces worked on at once (default 2). */
  concurrency?: number;
}

/** Passes per reconcile: delete the content, delete the events, finalize. */
const PASSES = 3;

/**
 * Kubernetes' namespace controller: a namespace with a deletionTimestamp is emptied (every
 * namespaced kind it is given, so kinds added later are covered), then finalized through
 * namespaces/<name>/finalize, and the apiserver removes it. Queue keys are namespace names.
 */
export function namespaceController(resources: readonly ApiResource[], options: NamespaceControllerOptions = {}): Controller {
  return { name: 'namespace', start: (ctx) => startNamespaceController(ctx, resources, options) };
}

async function startNamespaceController(ctx: ControllerContext, resources: readonly ApiResource[], options: NamespaceControllerOptions): Promise<RunningController> {
  const { api, clock } = ctx;
  const logger = ctx.logger.child('namespace');
  const kinds = resources.filter((d) => d.namespaced && d.source === undefined);

  const reconcile = async (name: string): Promise<void> => {
    let remaining = 0;
    for (let pass = 0; pass < PASSES; pass++) {
      const ns = await api.get<Namespace>({ resource: 'namespaces', name });
      const actions = planNamespace(ns, await contentsOf(api, kinds, name));
      await applyNamespaceActions(api, ns, actions, logger);
      const wait = actions.find((a) => a.type === 'wait');
      if (!wait) return;
      remaining = wait.remaining;
      if (!actions.some((a) => a.type === 'delete')) break;
    }
    throw new KedgeError('Unavailable', `namespace ${name} still holds ${remaining} objects being deleted`);
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: options.backoff ?? { minMs: 200, maxMs: 10_000 }, concurrency: options.concurrency ?? 2 });
  await loop.start([
    source(ctx.informers.of<Namespace>({ resource: 'namespaces' }), (event) => {
      if (event.type !== 'SYNCED' && event.type !== 'DELETED' && isDeleting(event.object)) loop.queue.add(event.object.metadata.name!);
    }),
  ]);
  return { close: () => loop.close() };
}

async function contentsOf(api: ApiClient, kinds: readonly ApiResource[], namespace: string): Promise<NamespaceContent[]> {
  return Promise.all(kinds.map(async (def) => ({ def, items: (await api.list<KubeObject>(resourceRef(def, namespace))).items })));
}

async function applyNamespaceActions(api: ApiClient, ns: Namespace, actions: readonly NamespaceAction[], logger: Logger): Promise<void> {
  const name = ns.metadata.name!;
  for (const action of actions) {
    if (action.type === 'delete') {
      const { namespace, name: objectName, uid } = action.object.metadata;
      await ignoreGone(api.delete(resourceRef(action.def, namespace, objectName), { propagationPolicy: 'Background', preconditions: { uid } }));
    } else if (action.type === 'finalize') {
      logger.info('namespace is empty, finalizing', { namespace: name });
      await api.replace<Namespace>({ resource: 'namespaces', name, subresource: 'finalize' }, { ...ns, spec: { ...ns.spec, finalizers: action.finalizers } });
    } else if (action.type === 'deleteNamespace') {
      await ignoreGone(api.delete({ resource: 'namespaces', name }));
    }
  }
}
