import type { TypeStrategy } from '../patch/patch-strategies.js';
import type { FieldStrategy } from '../patch/patch-strategies.js';
import { childOf, emptySet, insert, isEmpty, type FieldSet } from './field-set.js';
import { isAtomicMap, itemKey, listKindOf, schemaOf } from './field-schema.js';

/**
 * The two walks of structured-merge-diff that field ownership rests on: the field set of an
 * applied configuration (ToFieldSet) and the comparison of two versions of an object
 * (Compare: added, modified, removed). Maps are granular unless kube marks them atomic, lists
 * follow field-schema.ts, and an empty or absent map or list on both sides is a leaf.
 */

type Json = unknown;
type JsonMap = Record<string, Json>;

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function isMap(v: Json): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyValue(v: Json): boolean {
  return v === undefined || (isMap(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
}

/** The fields an applied configuration sets (struct fields are members only as leaves). */
export function fieldSetOf(obj: JsonMap, schema: TypeStrategy): FieldSet {
  const set = emptySet();
  visitFields(obj, schema, set);
  return set;
}

function visitFields(obj: JsonMap, schema: TypeStrategy, node: FieldSet): void {
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined) continue;
    const element = `f:${key}`;
    const child = childOf(node, element);
    visitValue(key, value, schema[key], child);
    if (isEmpty(child)) node.children.delete(element);
  }
}

function visitValue(name: string | undefined, value: Json, field: FieldStrategy | undefined, node: FieldSet): void {
  if (isMap(value)) {
    if ((name !== undefined && isAtomicMap(name)) || Object.keys(value).length === 0) node.member = true;
    else visitFields(value, schemaOf(field), node);
  } else if (Array.isArray(value)) visitList(value, field, node);
  else node.member = true;
}

function visitList(list: Json[], field: FieldStrategy | undefined, node: FieldSet): void {
  const kind = listKindOf(field);
  const keys = kind.type === 'map' ? list.map((item) => (isMap(item) ? itemKey(item, kind.keys) : undefined)) : [];
  if (kind.type === 'atomic' || keys.includes(undefined)) {
    node.member = true;
    return;
  }
  list.forEach((item, i) => {
    if (kind.type === 'set') {
      childOf(node, `v:${JSON.stringify(item)}`).member = true;
      return;
    }
    const child = childOf(node, keys[i]!);
    visitFields(item as JsonMap, schemaOf(field), child);
    child.member = true;
  });
}

/** What changed from `lhs` to `rhs`; every added or removed node counts, not only leaves. */
export function compare(lhs: JsonMap, rhs: JsonMap, schema: TypeStrategy): Comparison {
  const c: Comparison = { added: emptySet(), modified: emptySet(), removed: emptySet() };
  compareFields(lhs, rhs, schema, [], c);
  return c;
}

/** `path` is one stack shared by the whole walk: pushed on the way down, popped on the way up. */
function compareFields(lhs: JsonMap | undefined, rhs: JsonMap | undefined, schema: TypeStrategy, path: string[], c: Comparison): void {
  const visit = (key: string): void => {
    path.push(`f:${key}`);
    compareValue(key, lhs?.[key], rhs?.[key], schema[key], path, c);
    path.pop();
  };
  if (lhs) for (const key of Object.keys(lhs)) visit(key);
  if (rhs) for (const key of Object.keys(rhs)) if (!lhs || !(key in lhs)) visit(key);
}

function compareValue(name: string | undefined, l: Json, r: Json, field: FieldStrategy | undefined, path: string[], c: Comparison): void {
  if (l === undefined && r === undefined) return;
  if (isLeafPair(name, l, r, field)) {
    if (l === undefined) insert(c.added, path);
    else if (r === undefined) insert(c.removed, path);
    else if (!sameJson(l, r)) insert(c.modified, path);
    return;
  }
  if (isMap(l) || isMap(r)) compareFields(l as JsonMap | undefined, r as JsonMap | undefined, schemaOf(field), path, c);
  else compareLists((l ?? []) as Json[], (r ?? []) as Json[], field, path, c);
  if (l === undefined) insert(c.added, path);
  else if (r === undefined) insert(c.removed, path);
}

type Shape = 'absent' | 'map' | 'list' | 'scalar';

function shapeOf(v: Json): Shape {
  return v === undefined ? 'absent' : Array.isArray(v) ? 'list' : isMap(v) ? 'map' : 'scalar';
}

function isLeafPair(name: string | undefined, l: Json, r: Json, field: FieldStrategy | undefined): boolean {
  if (isEmptyValue(l) && isEmptyValue(r)) return true;
  const [a, b] = [shapeOf(l), shapeOf(r)];
  const shape = a === 'absent' ? b : a;
  if ((a !== 'absent' && b !== 'absent' && a !== b) || shape === 'scalar') return true;
  if (shape === 'map') return name !== undefined && isAtomicMap(name);
  const kind = listKindOf(field);
  if (kind.type !== 'map') return kind.type === 'atomic';
  return !allKeyed(l, kind.keys) || !allKeyed(r, kind.keys);
}

function allKeyed(list: Json, keys: readonly string[]): boolean {
  return ((list ?? []) as Json[]).every((item) => isMap(item) && itemKey(item, keys) !== undefined);
}

function compareLists(l: Json[], r: Json[], field: FieldStrategy | undefined, path: string[], c: Comparison): void {
  const kind = listKindOf(field);
  const elementOf = (item: Json): string => (kind.type === 'map' ? itemKey(item as JsonMap, kind.keys)! : `v:${JSON.stringify(item)}`);
  const left = new Map(l.map((item) => [elementOf(item), item]));
  const right = new Map(r.map((item) => [elementOf(item), item]));
  for (const element of new Set([...left.keys(), ...right.keys()])) {
    const [a, b] = [left.get(element), right.get(element)];
    path.push(element);
    if (kind.type !== 'set') compareFields(a as JsonMap | undefined, b as JsonMap | undefined, schemaOf(field), path, c);
    if (a === undefined) insert(c.added, path);
    else if (b === undefined) insert(c.removed, path);
    path.pop();
  }
}

function sameJson(a: Json, b: Json): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}
