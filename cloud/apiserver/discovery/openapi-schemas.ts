import { apiVersionOf, type ResourceDef } from '../kinds/registry.js';
import { ref, schemaName, type GroupVersionKind, type Schema } from '../schemas/schema-generator.js';
import type { SchemaSet } from '../schemas/schema-set.js';

/**
 * components.schemas of an OpenAPI v3 group-version document: each kind's real schema from
 * the schema set (cloud/apiserver/schemas/: client-node's models, kedge's own kinds) with
 * every schema it refers to, as kube-apiserver serves them (`kubectl explain` reads them).
 * A kind the set lacks gets an open schema (`x-kubernetes-preserve-unknown-fields`). Each
 * kind schema carries `x-kubernetes-group-version-kind` as a list, as kube-apiserver writes it.
 */

const metaPrefix = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const objectMetaName = `${metaPrefix}.ObjectMeta`;
export const listMetaName = `${metaPrefix}.ListMeta`;
export const statusName = `${metaPrefix}.Status`;
export const patchName = `${metaPrefix}.Patch`;

export function kindOf(def: ResourceDef): GroupVersionKind {
  return { group: def.group, version: def.version, kind: def.kind };
}

/** The kinds a subresource speaks (autoscaling/v1 Scale, core/v1 Binding), beyond the parent's. */
export function subresourceKinds(def: ResourceDef): GroupVersionKind[] {
  return def.subresources
    .filter((s) => s.kind !== undefined && s.kind !== def.kind)
    .map((s) => ({ group: s.group ?? def.group, version: s.version ?? def.version, kind: s.kind! }));
}

const typeFields = (gvk: GroupVersionKind): Schema => ({
  apiVersion: { type: 'string', description: `APIVersion of this representation: ${apiVersionOf(gvk)}.` },
  kind: { type: 'string', description: `Kind of this representation: ${gvk.kind}.` },
});

export function kindSchema(gvk: GroupVersionKind): Schema {
  return {
    description: `${gvk.kind} (${apiVersionOf(gvk)}). Open schema: kedge validates the fields on the server.`,
    type: 'object',
    properties: { ...typeFields(gvk), metadata: ref(objectMetaName) },
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [gvk],
  };
}

export function listSchema(gvk: GroupVersionKind): Schema {
  const list = { ...gvk, kind: `${gvk.kind}List` };
  return {
    description: `A list of ${gvk.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: { ...typeFields(list), metadata: ref(listMetaName), items: { type: 'array', items: ref(schemaName(gvk)) } },
    'x-kubernetes-group-version-kind': [list],
  };
}

const metaSchemas: Record<string, Schema> = {
  [objectMetaName]: {
    description: 'Standard object metadata.',
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Unique within a namespace.' },
      generateName: { type: 'string', description: 'Prefix for a server-generated name.' },
      namespace: { type: 'string', description: 'The namespace of a namespaced object.' },
      labels: { type: 'object', additionalProperties: { type: 'string' }, description: 'Labels, matched by selectors.' },
      annotations: { type: 'object', additionalProperties: { type: 'string' }, description: 'Free-form annotations.' },
    },
    'x-kubernetes-preserve-unknown-fields': true,
  },
  [listMetaName]: {
    description: 'Standard list metadata.',
    type: 'object',
    properties: { resourceVersion: { type: 'string' }, continue: { type: 'string' } },
  },
  [patchName]: { description: 'The body of a PATCH request, in the format its Content-Type names.', type: 'object' },
  [statusName]: {
    description: 'The result of an operation that returns no object, and every error.',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
  },
};

/** Every schema a document for these kinds refers to. */
export function componentSchemas(defs: readonly ResourceDef[], set?: SchemaSet): Record<string, Schema> {
  const out: Record<string, Schema> = { ...metaSchemas };
  const add = (gvk: GroupVersionKind, open: (gvk: GroupVersionKind) => Schema): void => {
    const real = set?.nameOf(gvk);
    if (real) copyWithRefs(set!, real, out);
    else out[schemaName(gvk)] = open(gvk);
  };
  for (const def of defs) {
    const gvk = kindOf(def);
    add(gvk, kindSchema);
    add({ ...gvk, kind: `${gvk.kind}List` }, () => listSchema(gvk));
    for (const sub of subresourceKinds(def)) add(sub, kindSchema);
  }
  return out;
}

/** Copies schema `name` and, transitively, every schema it refers to. */
function copyWithRefs(set: SchemaSet, name: string, out: Record<string, Schema>): void {
  const pending = [name];
  const seen = new Set<string>();
  while (pending.length) {
    const next = pending.pop()!;
    if (seen.has(next) || !set.schemas[next]) continue;
    seen.add(next);
    out[next] = set.schemas[next];
    pending.push(...refsIn(set.schemas[next]));
  }
}

function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v.slice(v.lastIndexOf('/') + 1)] : refsIn(v)));
}
