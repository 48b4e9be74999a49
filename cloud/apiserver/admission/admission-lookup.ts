import type { KubeObject } from '../../../shared/types.js';
import type { AdmissionContext, ObjectListing, ObjectLookup, ResourceDef } from '../kinds/registry.js';
import type { RestDeps } from '../rest/rest-context.js';

/**
 * Runs the kind's `admitCreate` step (admission that reads other kinds) on a create, with a
 * reader over storage. Reads go to the store, as kube's plugins read their informer caches.
 */
export async function admitCreateWithLookups(deps: RestDeps, def: ResourceDef, obj: KubeObject, ctx: AdmissionContext): Promise<void> {
  const hook = def.strategy?.admitCreate;
  if (!hook || ctx.operation !== 'create') return;
  const lookup: ObjectLookup = (other, namespace, name) => deps.storage.find(other, namespace, name);
  const list: ObjectListing = async (other, namespace) => (await deps.storage.list(other, namespace)).items;
  await hook(obj, { ...ctx, lookup, list });
}
