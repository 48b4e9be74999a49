import { deepFreeze } from '../../shared/freeze.js';

/** The one empty object and the one empty array every stored value shares (frozen: no one can fill them). */
const EMPTY_OBJECT: Readonly<Record<string, never>> = Object.freeze({});
const EMPTY_ARRAY: readonly never[] = Object.freeze([]);

type Json = Record<string, unknown> | unknown[];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** A plain object or array, as JSON makes them: anything else (a Date, a Buffer) is left as it is. */
const isPlain = (v: Json): boolean => {
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto === Object.prototype || proto === null; // no array made per node of every stored value
};

/** Strings this long or shorter are pooled: names, kinds, versions, timestamps, uids; not messages or payloads. */
const POOLED_LENGTH = 64;
/** Field sets (a managedFields entry's fieldsV1) this long in JSON or shorter are pooled. */
const POOLED_FIELDS_LENGTH = 1024;
/** Distinct strings a pool holds before it starts again (bounds what it keeps alive). */
const STRINGS_LIMIT = 10_000;
/** Distinct field sets a pool holds before it starts again: each is kept with its JSON, up to 1 KiB. */
const FIELD_SETS_LIMIT = 1_000;

/**
 * What the values of one store hold many times over, one copy each: short strings ("v1",
 * "Update", "default", a node's name, a timestamp), which a copied value has each anew, and
 * small field sets (`metadata.managedFields[].fieldsV1`), the same for every object a manager
 * writes alike (every Event a kubelet reports, every pod a scheduler binds). Bounded: a table
 * that is full starts again, so a pool keeps at most its limit of each alive of its own.
 */
export class ValuePool {
  private readonly strings = new Map<string, string>();
  private readonly fieldSets = new Map<string, object>();

  constructor(private readonly limits = { strings: STRINGS_LIMIT, fieldSets: FIELD_SETS_LIMIT }) {}

  get size(): { strings: number; fieldSets: number } {
    return { strings: this.strings.size, fieldSets: this.fieldSets.size };
  }

  string(s: string): string {
    return s.length > POOLED_LENGTH ? s : this.pooled(this.strings, this.limits.strings, s, s);
  }

  /** The pool's frozen copy of an equal field set, or `set` itself, frozen, from now on the pool's. */
  fieldSet(set: object): object {
    const json = JSON.stringify(set);
    return json.length > POOLED_FIELDS_LENGTH ? set : this.pooled(this.fieldSets, this.limits.fieldSets, json, deepFreeze(set));
  }

  private pooled<V>(table: Map<string, V>, limit: number, key: string, value: V): V {
    const had = table.get(key);
    if (had !== undefined) return had;
    if (table.size >= limit) table.clear();
    table.set(key, value);
    return value;
  }
}

/**
 * A new value to store, made to share what it has in common with the version before it:
 * every subtree of `next` equal to the one at the same place in `prev` (same keys in the same
 * order, equal leaves) becomes `prev`'s, and every empty object or array becomes one shared
 * one, and every short string and small field set the pool's copy of it. The value reads and
 * serialises exactly as before; only its memory shrinks (a status write no longer copies the
 * spec and metadata its watch history keeps of the older version). `next` is changed in place
 * (the store owns what it is given, and freezes it); a frozen `next`, and anything but plain
 * objects and arrays in it, stay as they are. Returns `prev` itself when the whole value is equal.
 */
export function shareSubtrees<T>(prev: unknown, next: T, pool = new ValuePool()): T {
  return share(prev, next, pool) as T;
}

function share(prev: unknown, next: unknown, pool: ValuePool): unknown {
  if (!isObject(next)) return next === prev ? prev : typeof next === 'string' ? pool.string(next) : next;
  if (Object.isFrozen(next) || !isPlain(next)) return next;
  if (Array.isArray(next)) return shareArray(Array.isArray(prev) ? prev : undefined, next, pool);
  return shareObject(isObject(prev) && !Array.isArray(prev) ? prev : undefined, next as Record<string, unknown>, pool);
}

function shareArray(prev: unknown[] | undefined, next: unknown[], pool: ValuePool): unknown {
  if (next.length === 0) return prev?.length === 0 ? prev : EMPTY_ARRAY;
  let equal = prev?.length === next.length;
  for (let i = 0; i < next.length; i++) {
    const before = prev?.[i];
    const shared = share(before, next[i], pool);
    next[i] = shared;
    equal &&= shared === before;
  }
  return equal ? prev : next;
}

function shareObject(prev: Record<string, unknown> | undefined, next: Record<string, unknown>, pool: ValuePool): unknown {
  const keys = Object.keys(next);
  if (keys.length === 0) return prev !== undefined && Object.keys(prev).length === 0 ? prev : EMPTY_OBJECT;
  const prevKeys = prev === undefined ? undefined : Object.keys(prev);
  let equal = prevKeys?.length === keys.length;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === '__proto__') {
      equal = false; // an own key JSON.parse made: an assignment would set the prototype instead
      continue;
    }
    const before = prev !== undefined && Object.hasOwn(prev, key) ? prev[key] : undefined;
    let shared = share(before, next[key], pool);
    if (key === 'fieldsV1' && shared !== before && isObject(shared)) shared = pool.fieldSet(shared);
    next[key] = shared;
    equal &&= shared === before && prevKeys![i] === key;
  }
  return equal ? prev : next;
}
