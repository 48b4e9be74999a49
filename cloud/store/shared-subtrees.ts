/** The one empty object and the one empty array every stored value shares (frozen: no one can fill them). */
const EMPTY_OBJECT: Readonly<Record<string, never>> = Object.freeze({});
const EMPTY_ARRAY: readonly never[] = Object.freeze([]);

type Json = Record<string, unknown> | unknown[];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** Strings this long or shorter are pooled: names, kinds, versions, timestamps, uids; not messages or payloads. */
const POOLED_LENGTH = 64;
/** Distinct strings a pool holds before it starts again (bounds what it keeps alive). */
const POOL_LIMIT = 10_000;

/**
 * One copy of each short string the values of a store hold ("v1", "Update", "default", a node's
 * name, a timestamp): a copied value's strings are each a new string otherwise. Bounded: when
 * full it starts again, so it keeps at most POOL_LIMIT strings alive of its own.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();

  constructor(private readonly limit = POOL_LIMIT) {}

  get size(): number {
    return this.strings.size;
  }

  intern(s: string): string {
    if (s.length > POOLED_LENGTH) return s;
    const pooled = this.strings.get(s);
    if (pooled !== undefined) return pooled;
    if (this.strings.size >= this.limit) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }
}

/**
 * A new value to store, made to share what it has in common with the version before it:
 * every subtree of `next` equal to the one at the same place in `prev` (same keys in the same
 * order, equal leaves) becomes `prev`'s, and every empty object or array becomes one shared
 * one, and every short string the pool's copy of it. The value reads and serialises exactly as
 * before; only its memory shrinks (a status write no longer copies the spec and metadata its
 * watch history keeps of the older version).
 * `next` is changed in place (the store owns what it is given, and freezes it); a frozen
 * `next` is returned as it is. Returns `prev` itself when the whole value is equal.
 */
export function shareSubtrees<T>(prev: unknown, next: T, pool = new StringPool()): T {
  return share(prev, next, pool) as T;
}

function share(prev: unknown, next: unknown, pool: StringPool): unknown {
  if (!isObject(next)) return next === prev ? prev : typeof next === 'string' ? pool.intern(next) : next;
  if (Object.isFrozen(next)) return next;
  if (Array.isArray(next)) return shareArray(Array.isArray(prev) ? prev : undefined, next, pool);
  return shareObject(isObject(prev) && !Array.isArray(prev) ? prev : undefined, next as Record<string, unknown>, pool);
}

function shareArray(prev: unknown[] | undefined, next: unknown[], pool: StringPool): unknown {
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

function shareObject(prev: Record<string, unknown> | undefined, next: Record<string, unknown>, pool: StringPool): unknown {
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
    const shared = share(before, next[key], pool);
    next[key] = shared;
    equal &&= shared === before && prevKeys![i] === key;
  }
  return equal ? prev : next;
}
