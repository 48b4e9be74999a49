import { createHash } from 'node:crypto';
import { jsonEqual } from '../json-equal.js';

/**
 * [SYNC-25] The sync's patches (docs/protocol.md, "Lean sync"): a JSON merge patch (RFC 7386) from the
 * version of an object the edge acknowledged to the newest one, with a digest of the result so
 * that the edge can tell that it rebuilt exactly the object the cloud meant. Pure.
 */
export const WIRE_PATCH = 'patch-v1';

type Fields = Record<string, unknown>;
const isObject = (x: unknown): x is Fields => typeof x === 'object' && x !== null && !Array.isArray(x);

/** RFC 7386: `patch` applied to `base` (neither is changed). */
export function applyMergePatch(base: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Fields = isObject(base) ? { ...base } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** The members of `target` that differ from `base`, as a merge patch (null: removed). */
function diff(base: Fields, target: Fields): Fields {
  const patch: Fields = {};
  for (const key of Object.keys(base)) if (target[key] === undefined && base[key] !== undefined) patch[key] = null;
  for (const [key, value] of Object.entries(target)) {
    if (value === undefined) continue;
    const was = base[key];
    if (isObject(was) && isObject(value)) {
      const inner = diff(was, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (!jsonEqual(was, value)) patch[key] = value;
  }
  return patch;
}

/**
 * The merge patch that turns `base` into `target`; undefined when none does (a merge patch
 * cannot set a member to null: the caller sends the whole object instead).
 */
export function mergePatchBetween(base: Fields, target: Fields): Fields | undefined {
  const patch = diff(base, target);
  return jsonEqual(applyMergePatch(base, patch), target) ? patch : undefined;
}

/** JSON with every object's members in key order, undefined members left out as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value) ?? 'null';
  const members = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`);
  return `{${members.join(',')}}`;
}

/** What a patch's result is checked against: 16 hex digits of the SHA-256 of its canonical JSON. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

/** A pod without its status: the edge owns status [SYNC-12], so a patch's digest covers the rest. */
export function withoutStatus<T extends object>(object: T): T {
  if (!('status' in object)) return object;
  const { status: _status, ...rest } = object as T & { status?: unknown };
  return rest as T;
}

/** The digest a patch's result must have: of the whole object, a pod's without its status. */
export const syncedDigest = (kind: string, object: object): string => digestOf(kind === 'Pod' ? withoutStatus(object) : object);
