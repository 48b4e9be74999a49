import { randomInt, randomUUID } from 'node:crypto';
import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { jsonEqual } from '../../../shared/json-equal.js';
import { timestamp } from '../../client/object-meta.js';
import { apiVersionOf, hasSubresource, type ResourceDef } from '../kinds/registry.js';

/** Server-owned metadata on create and update (uid, timestamps, generation) and the status rules. */

const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName + 5 random characters, as the apiserver's SimpleNameGenerator does. */
export function generatedName(prefix: string): string {
  const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[randomInt(nameAlphabet.length)];
  return base + suffix;
}

/** Checks the body's kind/apiVersion (when given) and fills them in. */
export function checkTypeMeta(def: ResourceDef, obj: KubeObject): void {
  const apiVersion = apiVersionOf(def);
  if (obj.kind !== undefined && obj.kind !== def.kind) {
    throw new KedgeError('BadRequest', `the kind in the data (${obj.kind}) does not match the expected kind (${def.kind})`);
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw new KedgeError('BadRequest', `the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
  }
  obj.kind = def.kind;
  obj.apiVersion = apiVersion;
}

/** Server-set metadata on create: name (from generateName), uid, creationTimestamp, generation 1. */
export function prepareCreate(def: ResourceDef, obj: KubeObject, namespace: string | undefined, now: number): void {
  const meta = obj.metadata;
  if (!meta.name && meta.generateName) meta.name = generatedName(meta.generateName);
  if (def.namespaced) meta.namespace = namespace;
  else delete meta.namespace;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  meta.uid = randomUUID();
  meta.creationTimestamp = timestamp(now);
  meta.generation = 1;
}

/**
 * The object to store for an update of the main resource (`status` kept as it was when the
 * kind has a status subresource) or of the status subresource (only `status` taken). What it
 * takes from `next` is copied, unless `nextIsOwn` (the caller's own, to be changed and stored).
 */
export function prepareUpdate(def: ResourceDef, next: KubeObject, current: KubeObject, subresource: 'main' | 'status', nextIsOwn = false): KubeObject {
  const out = subresource === 'status' ? withStatusOf(current, next, nextIsOwn) : nextIsOwn ? next : structuredClone(next);
  if (subresource === 'main' && hasSubresource(def, 'status')) setStatus(out, statusOf(current));
  out.kind = def.kind;
  out.apiVersion = apiVersionOf(def);
  const meta = out.metadata;
  const old = current.metadata;
  meta.name = old.name;
  if (def.namespaced) meta.namespace = old.namespace;
  meta.uid = old.uid;
  meta.creationTimestamp = old.creationTimestamp;
  if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
  else delete meta.deletionTimestamp;
  meta.resourceVersion = old.resourceVersion;
  meta.generation = (old.generation ?? 1) + (specChanged(out, current) ? 1 : 0);
  if (meta.generateName === undefined && old.generateName !== undefined) meta.generateName = old.generateName;
  return out;
}

/**
 * A copy of `current` with `next`'s status in its place. Not copied: the old status (replaced)
 * and managedFields (often the larger half of an object), which a status update only reads
 * and replaces whole: the copy shares them.
 */
function withStatusOf(current: KubeObject, next: KubeObject, nextIsOwn: boolean): KubeObject {
  const meta = current.metadata as KubeObject['metadata'] & { managedFields?: unknown };
  const shared = 'managedFields' in meta;
  const out = structuredClone({ ...current, status: undefined, ...(shared && { metadata: { ...meta, managedFields: undefined } }) });
  if (shared) (out.metadata as typeof meta).managedFields = meta.managedFields;
  setStatus(out, statusOf(next), !nextIsOwn);
  return out;
}

function statusOf(obj: KubeObject): unknown {
  return (obj as { status?: unknown }).status;
}

function setStatus(obj: KubeObject, status: unknown, copy = true): void {
  const o = obj as { status?: unknown };
  if (status === undefined) delete o.status;
  else o.status = copy ? structuredClone(status) : status;
}

/** Whether anything outside metadata and status changed (which bumps metadata.generation). */
function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): unknown => {
    const { metadata: _m, status: _s, kind: _k, apiVersion: _a, ...rest } = o as KubeObject & { status?: unknown };
    return rest;
  };
  // Key order alone must not bump the generation.
  return !jsonEqual(strip(a), strip(b));
}
