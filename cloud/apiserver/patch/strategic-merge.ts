import { KedgeError } from '../../../shared/errors.js';
import type { FieldStrategy, TypeStrategy } from './patch-strategies.js';

/**
 * Strategic merge patch as kube-apiserver applies it (apimachinery's strategicpatch, server
 * options MergeParallelList and IgnoreUnmatchedNulls): maps merge key by key and `null`
 * deletes; lists whose field has the `merge` strategy merge by their merge key (primitive
 * lists as sets); every other list is replaced. Directives: `$patch: replace|delete|merge`
 * on maps and list elements, `$setElementOrder/<f>`, `$retainKeys`, `$deleteFromPrimitiveList/<f>`.
 * Directives never reach the result.
 */

type Json = unknown;
type JsonMap = Record<string, Json>;

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/';
/** What a `$patch: delete` map merges into: the field goes away. */
const DELETED = Symbol('deleted');
type Merged = JsonMap | typeof DELETED;

function isMap(v: Json): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function badPatch(message: string): KedgeError {
  return new KedgeError('BadRequest', message);
}

/** Applies `patch` to `original` (never modified) with the kind's schema. */
export function strategicMerge(original: Json, patch: Json, schema: TypeStrategy): JsonMap {
  if (!isMap(patch)) throw badPatch('a strategic merge patch must be a JSON object');
  const merged = mergeMap(isMap(original) ? original : undefined, patch, schema);
  return merged === DELETED ? {} : merged;
}

function mergeMap(original: JsonMap | undefined, patch: JsonMap, schema: TypeStrategy): Merged {
  const directive = patch[PATCH];
  if (directive === 'delete') return DELETED;
  if (directive === 'replace') original = undefined;
  else if (directive !== undefined && directive !== 'merge') throw badPatch(`unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  const out: JsonMap = original ? { ...original } : {};
  retainKeys(out, patch[RETAIN_KEYS]);
  for (const [key, value] of Object.entries(patch)) {
    if (key === PATCH || key === RETAIN_KEYS || key.startsWith(ELEMENT_ORDER)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      deleteFromPrimitiveList(out, key.slice(DELETE_FROM_PRIMITIVE.length), value);
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const merged = mergeValue(out[key], value, schema[key], patch[ELEMENT_ORDER + key]);
    if (merged === DELETED) delete out[key];
    else out[key] = merged;
  }
  orderUnpatchedLists(out, patch, schema);
  return out;
}

function mergeValue(original: Json, value: Json, field: FieldStrategy | undefined, order: Json): Json | typeof DELETED {
  if (isMap(value)) return mergeMap(isMap(original) ? original : undefined, value, field?.of ?? {});
  if (!Array.isArray(value)) return value;
  if (field?.strategies?.includes('merge')) return mergeList(Array.isArray(original) ? original : [], value, field, order);
  return replacedList(value);
}

/** A list without the merge strategy: the patch's elements, with directives and nulls taken out. */
function replacedList(items: Json[]): Json[] {
  const out: Json[] = [];
  for (const item of items) {
    const clean = isMap(item) ? mergeMap(undefined, item, {}) : Array.isArray(item) ? replacedList(item) : item;
    if (clean !== DELETED) out.push(clean);
  }
  return out;
}

/** `$retainKeys: [...]`: keys of the original not listed go away (a union's other members). */
function retainKeys(out: JsonMap, keys: Json): void {
  if (keys === undefined) return;
  if (!Array.isArray(keys)) throw badPatch(`${RETAIN_KEYS} must be a list of field names`);
  for (const key of Object.keys(out)) if (!keys.includes(key)) delete out[key];
}

function deleteFromPrimitiveList(out: JsonMap, field: string, values: Json): void {
  if (!Array.isArray(values)) throw badPatch(`${DELETE_FROM_PRIMITIVE}${field} must be a list`);
  const current = out[field];
  if (!Array.isArray(current)) return;
  const kept = current.filter((v) => !values.includes(v));
  if (kept.length > 0) out[field] = kept;
  else delete out[field];
}

function mergeList(original: Json[], patch: Json[], field: FieldStrategy, order: Json): Json[] {
  const items = patch.filter((p) => !(isMap(p) && p[PATCH] === 'replace'));
  if (items.length < patch.length) return replacedList(items);
  const mergeKey = field.mergeKey;
  const merged = mergeKey === undefined ? mergePrimitives(original, items) : mergeByKey(original, items, mergeKey, field.of ?? {});
  return order === undefined ? merged : inElementOrder(merged, original, order, mergeKey);
}

function mergePrimitives(original: Json[], patch: Json[]): Json[] {
  const out = [...original];
  for (const value of patch) {
    if (isMap(value) || Array.isArray(value)) throw badPatch(`a list of primitives cannot take ${JSON.stringify(value)}`);
    if (!out.includes(value)) out.push(value);
  }
  return out;
}

function mergeByKey(original: Json[], patch: Json[], mergeKey: string, schema: TypeStrategy): Json[] {
  const out = [...original];
  const indexOf = (key: Json): number => out.findIndex((o) => isMap(o) && o[mergeKey] === key);
  for (const item of patch) {
    if (!isMap(item)) throw badPatch(`a list merged by ${mergeKey} cannot take ${JSON.stringify(item)}`);
    const key = item[mergeKey];
    if (key === undefined) throw badPatch(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    const at = indexOf(key);
    if (item[PATCH] === 'delete') {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    const merged = mergeMap(at >= 0 ? (out[at] as JsonMap) : undefined, item, schema);
    if (merged === DELETED) {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at] = merged;
    else out.push(merged);
  }
  return out;
}

/** `$setElementOrder/<f>` given without `<f>` itself still orders the stored list. */
function orderUnpatchedLists(out: JsonMap, patch: JsonMap, schema: TypeStrategy): void {
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(ELEMENT_ORDER)) continue;
    const field = key.slice(ELEMENT_ORDER.length);
    const list = out[field];
    if (field in patch || !Array.isArray(list)) continue;
    out[field] = inElementOrder(list, list, order, schema[field]?.mergeKey);
  }
}

/**
 * The elements named in `order` take that order; elements the order does not name (the
 * server's own, such as a container injected by someone else) keep their place relative to
 * the original list, as apimachinery's normalizeElementOrder does.
 */
function inElementOrder(list: Json[], original: Json[], order: Json, mergeKey: string | undefined): Json[] {
  if (!Array.isArray(order)) throw badPatch(`${ELEMENT_ORDER} must be a list`);
  const keyOf = (v: Json): Json => (mergeKey === undefined ? v : isMap(v) ? v[mergeKey] : undefined);
  const orderKeys = order.map(keyOf);
  const rank = (v: Json): number => orderKeys.indexOf(keyOf(v));
  const serverIndex = (v: Json): number => original.findIndex((o) => keyOf(o) === keyOf(v));
  const named = list.filter((v) => rank(v) >= 0).sort((a, b) => rank(a) - rank(b));
  const others = list.filter((v) => rank(v) < 0);
  const out: Json[] = [];
  while (named.length > 0 && others.length > 0) {
    const [a, b] = [serverIndex(named[0]), serverIndex(others[0])];
    out.push(a >= 0 && b < a ? others.shift() : named.shift());
  }
  return [...out, ...named, ...others];
}
