import type { KubeObject } from '../../../shared/types.js';
import type { AdmissionContext, ResourceDef } from '../kinds/registry.js';
import { isKedgeError } from '../../../shared/errors.js';
import type { RestDeps } from './rest-context.js';
import { objectKey, pendingEntries, readReservations, type Reservations } from './reservations.js';

/**
 * The strategy's `prepare` step (server-side allocation from the kind's other objects),
 * and the serialization that keeps what it picks unique.
 */

/** Runs `write` alone among the kind's writes when the kind has a prepare step; else as is. */
export function serializedFor<T>(deps: RestDeps, def: ResourceDef, write: () => Promise<T>): Promise<T> {
  if (!def.strategy?.prepare) return write();
  return deps.storage.exclusive(`${def.group}/${def.resource}`, write);
}

/** Picks again at most this often when other apiservers keep recording picks in between. */
const RESERVE_ATTEMPTS = 10;

/**
 * The kind's prepare step on `obj`, if it has one; call it inside `serializedFor`. For a kind
 * with `reservation`, what other apiservers on the store picked but have not written yet counts
 * as taken, and this pick is recorded before the write (reservations.ts); picked again when
 * another was recorded in between.
 */
export async function prepareObject(deps: RestDeps, def: ResourceDef, obj: KubeObject, ctx: AdmissionContext): Promise<void> {
  const prepare = def.strategy?.prepare;
  if (!prepare) return;
  const reservation = def.strategy?.reservation;
  const original = structuredClone(obj);
  for (let attempt = 1; ; attempt++) {
    const read: Reservations = reservation ? await readReservations(deps.store, def) : { entries: [] };
    let stored = new Set<string>();
    // The object's own stored version is not an "other": on update it is the one being
    // replaced, and on create it makes the write fail with AlreadyExists, not with a clash.
    const others = async (): Promise<KubeObject[]> => {
      const { items } = await deps.storage.list(def, undefined);
      stored = new Set(items.map(objectKey));
      const picked = pendingEntries(read.entries, stored, deps.clock.now()).map((e) => e.object);
      return [...items, ...picked].filter((o) => objectKey(o) !== objectKey(obj));
    };
    await prepare(obj, { ...ctx, others });
    const held = reservation?.(obj, ctx.old);
    if (!held) return;
    try {
      return await deps.storage.reserve(def, read, { key: objectKey(obj), at: deps.clock.now(), object: held }, stored);
    } catch (err) {
      if (!isKedgeError(err, 'Conflict') || attempt >= RESERVE_ATTEMPTS) throw err;
      for (const key of Object.keys(obj)) delete (obj as unknown as Record<string, unknown>)[key];
      Object.assign(obj, structuredClone(original));
    }
  }
}
