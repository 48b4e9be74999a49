import type { FieldStrategy, TypeStrategy } from '../patch/patch-strategies.js';

/**
 * What server-side apply needs of a kind's schema, read from the strategic-merge table
 * (patch-strategies.ts): a list merged by key is a map-list (x-kubernetes-list-type: map)
 * with kube's list-map keys, one merged without a key is a set, every other list is atomic.
 * Where the OpenAPI list-map keys are more than the patchMergeKey, this table says so.
 */

export type ListKind = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: readonly string[] };

/** patchMergeKey → x-kubernetes-list-map-keys, where kube's schema declares more keys. */
const LIST_MAP_KEYS: Readonly<Record<string, readonly string[]>> = {
  containerPort: ['containerPort', 'protocol'],
  port: ['port', 'protocol'],
};

/** x-kubernetes-list-map-keys with a schema default: an item without the key counts with the default. */
const KEY_DEFAULTS: Readonly<Record<string, unknown>> = { protocol: 'TCP' };

/** Fields kube marks `x-kubernetes-map-type: atomic` (LabelSelector, Service and Pod selectors). */
const ATOMIC_MAPS = new Set(['selector', 'nodeSelector']);

export function listKindOf(field: FieldStrategy | undefined): ListKind {
  if (!field?.strategies?.includes('merge')) return { type: 'atomic' };
  if (field.mergeKey === undefined) return { type: 'set' };
  return { type: 'map', keys: LIST_MAP_KEYS[field.mergeKey] ?? [field.mergeKey] };
}

export function isAtomicMap(name: string): boolean {
  return ATOMIC_MAPS.has(name);
}

/** The `k:` path element of a map-list item; undefined when the item lacks a key without a default. */
export function itemKey(item: Record<string, unknown>, keys: readonly string[]): string | undefined {
  const sorted = [...keys].sort();
  const values: Record<string, unknown> = {};
  for (const key of sorted) {
    const value = item[key] ?? KEY_DEFAULTS[key];
    if (value === undefined) {
      if (keys.length === 1) return undefined;
      continue;
    }
    values[key] = value;
  }
  return `k:${JSON.stringify(values)}`;
}

export function schemaOf(field: FieldStrategy | undefined): TypeStrategy {
  return field?.of ?? {};
}
