import type { KubeObject, OwnerReference } from '../../../shared/types.js';
import type { ResourceRef } from '../../client/client.js';
import type { ApiResource } from '../../client/api-resource.js';

/** An object the garbage collector knows: its kind's row of the resource table and the object. */
export interface GraphEntry {
  def: ApiResource;
  object: KubeObject;
}

/** The API address of a kind (a collection, or one object with `name`). */
export function resourceRef(def: ApiResource, namespace?: string, name?: string): ResourceRef {
  const ref: ResourceRef = { resource: def.resource };
  if (def.group) ref.group = def.group;
  if (def.namespaced && namespace !== undefined) ref.namespace = namespace;
  if (name !== undefined) ref.name = name;
  return ref;
}

export function entryRef(entry: GraphEntry): ResourceRef {
  return resourceRef(entry.def, entry.object.metadata.namespace, entry.object.metadata.name);
}

/** The kind an owner reference names (matched on group and kind; the version may differ). */
export function ownerDef(resources: readonly ApiResource[], ref: OwnerReference): ApiResource | undefined {
  const slash = ref.apiVersion.indexOf('/');
  const group = slash >= 0 ? ref.apiVersion.slice(0, slash) : '';
  return resources.find((d) => d.group === group && d.kind === ref.kind);
}

export function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  return obj.metadata.ownerReferences ?? [];
}
