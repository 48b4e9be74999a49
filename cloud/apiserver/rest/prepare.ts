import type { KubeObject } from '../../../shared/types.js';
import type { AdmissionContext, ResourceDef } from '../kinds/registry.js';
import type { RestDeps } from './rest-context.js';

/**
 * The strategy's `prepare` step (server-side allocation from the kind's other objects),
 * and the serialization that keeps what it picks unique.
 */

/** Runs `write` alone among the kind's writes when the kind has a prepare step; else as is. */
export function serializedFor<T>(deps: RestDeps, def: ResourceDef, write: () => Promise<T>): Promise<T> {
  if (!def.strategy?.prepare) return write();
  return deps.storage.exclusive(`${def.group}/${def.resource}`, write);
}

/** The kind's prepare step on `obj`, if it has one; call it inside `serializedFor`. */
export async function prepareObject(deps: RestDeps, def: ResourceDef, obj: KubeObject, ctx: AdmissionContext): Promise<void> {
  const prepare = def.strategy?.prepare;
  if (!prepare) return;
  // The object's own stored version is not an "other": on update it is the one being
  // replaced, and on create it makes the write fail with AlreadyExists, not with a clash.
  const { namespace, name } = obj.metadata;
  const others = async (): Promise<KubeObject[]> => {
    const { items } = await deps.storage.list(def, undefined);
    return items.filter((o) => o.metadata.name !== name || o.metadata.namespace !== namespace);
  };
  await prepare(obj, { ...ctx, others });
}
