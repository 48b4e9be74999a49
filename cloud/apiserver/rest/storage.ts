import { KedgeError, isKedgeError } from '../../../shared/errors.js';
import { jsonEqual } from '../../../shared/json-equal.js';
import type { KubeObject } from '../../../shared/types.js';
import type { KeyValue, Store } from '../../store/store.js';
import { apiVersionOf, storeKey, storePrefix, type ResourceDef } from '../kinds/registry.js';
import { recordReservation, type Reservation, type Reservations } from './reservations.js';

/**
 * Kubernetes objects on top of the revisioned Store: keys, resourceVersion = modRevision,
 * and Kubernetes-worded NotFound / AlreadyExists / Conflict errors.
 */
export class ObjectStorage {
  /** The last section queued per name (see `exclusive`). */
  private readonly sections = new Map<string, Promise<unknown>>();

  constructor(private readonly store: Store) {}

  /**
   * Runs `fn` once every earlier section of the same name has finished: values a write picks
   * as free from a list (a Service's clusterIP) cannot be picked twice in this apiserver.
   */
  async exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.sections.get(name) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => undefined);
    this.sections.set(name, tail);
    try {
      return await run;
    } finally {
      if (this.sections.get(name) === tail) this.sections.delete(name);
    }
  }

  get revision(): number {
    return this.store.revision;
  }

  /** Records a pick of unique values for the other apiservers on the store (reservations.ts); Conflict when one recorded meanwhile. */
  reserve(def: ResourceDef, read: Reservations, entry: Reservation, stored: ReadonlySet<string>): Promise<void> {
    return recordReservation(this.store, def, read, entry, stored);
  }

  async get(def: ResourceDef, namespace: string | undefined, name: string): Promise<KubeObject> {
    const kv = await this.store.get(storeKey(def, namespace, name));
    if (!kv) throw notFound(def, name);
    return toObject(def, kv);
  }

  /** Like get, but undefined when there is no such object. */
  async find(def: ResourceDef, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    return this.get(def, namespace, name).catch((err: unknown) => {
      if (isKedgeError(err, 'NotFound')) return undefined;
      throw err;
    });
  }

  async list(def: ResourceDef, namespace: string | undefined): Promise<{ items: KubeObject[]; revision: number }> {
    const result = await this.store.list(storePrefix(def, namespace));
    return { items: result.items.map((kv) => toObject(def, kv)), revision: result.revision };
  }

  /** `owned`: `obj` is the caller's own, shared with nothing that changes: the store freezes it instead of a copy. */
  async create(def: ResourceDef, obj: KubeObject, owned = false): Promise<KubeObject> {
    const name = obj.metadata.name!;
    try {
      return toObject(def, await this.store.create(storeKey(def, obj.metadata.namespace, name), toStored(obj, owned)));
    } catch (err) {
      if (isKedgeError(err, 'AlreadyExists')) throw alreadyExists(def, name);
      throw err;
    }
  }

  /** Compare-and-set on `expectedResourceVersion` (the resourceVersion the caller read); `owned` as for create. */
  async update(def: ResourceDef, obj: KubeObject, expectedResourceVersion: string, owned = false): Promise<KubeObject> {
    const name = obj.metadata.name!;
    try {
      const kv = await this.store.update(storeKey(def, obj.metadata.namespace, name), toStored(obj, owned), revisionOf(expectedResourceVersion));
      return toObject(def, kv);
    } catch (err) {
      throw translate(def, name, err);
    }
  }

  async delete(def: ResourceDef, namespace: string | undefined, name: string, expectedResourceVersion?: string): Promise<KubeObject> {
    try {
      const expected = expectedResourceVersion === undefined ? undefined : revisionOf(expectedResourceVersion);
      const kv = await this.store.delete(storeKey(def, namespace, name), expected);
      return toObject(def, kv);
    } catch (err) {
      throw translate(def, name, err);
    }
  }

  /**
   * Reads, transforms and writes with compare-and-set, retrying when someone else wrote in
   * between (kube's GuaranteedUpdate); a transform that keeps the read resourceVersion is
   * retried, one that sets another is the caller's precondition and its Conflict the answer.
   * `transform` returning an equal object means "no change". The read-modify-writes of one
   * object queue in this apiserver, so that concurrent ones do not spend their attempts on
   * each other: only other apiservers' writes (and plain creates and deletes) come in between.
   * `write` replaces the compare-and-set update (rest-delete.ts removes a finalized object).
   * The transform gets a deep copy of the stored object, unless `readsOnly`.
   */
  guaranteedUpdate(def: ResourceDef, namespace: string | undefined, name: string, transform: Transform, options: GuaranteedUpdateOptions = {}): Promise<KubeObject> {
    const { attempts = 5, write, readsOnly = false } = options;
    return this.exclusive(`object:${storeKey(def, namespace, name)}`, async () => {
      for (let i = 1; ; i++) {
        const current = await this.get(def, namespace, name);
        const next = await transform(readsOnly ? shallowCopy(current) : structuredClone(current));
        try {
          if (write) return await write(next, current);
          if (sameObject(next, current)) return current;
          return await this.update(def, next, current.metadata.resourceVersion!, readsOnly);
        } catch (err) {
          if (!isKedgeError(err, 'Conflict') || i >= attempts || next.metadata.resourceVersion !== current.metadata.resourceVersion) throw err;
        }
      }
    });
  }
}

export type Transform = (current: KubeObject) => KubeObject | Promise<KubeObject>;

export interface GuaranteedUpdateOptions {
  /** Reads and writes at most this often (5). */
  attempts?: number;
  /** Stores `next`, read as `current`, instead of the compare-and-set update; Conflict retries. */
  write?: (next: KubeObject, current: KubeObject) => Promise<KubeObject>;
  /**
   * The transform only reads its argument (below the top level and metadata it is the store's
   * frozen object: a change there throws) and returns an object of its own, shared with nothing
   * but frozen stored objects: neither is copied, and the store freezes the result as it is.
   */
  readsOnly?: boolean;
}

/**
 * A stored entry as an API object, with kind, apiVersion and resourceVersion. Only the top
 * level and metadata are new: everything below is the store's frozen value, shared by every
 * reader and watcher (copying each object per watcher was the apiserver's main cost). Code
 * that changes an object copies it first (guaranteedUpdate does).
 */
export function toObject(def: ResourceDef, kv: KeyValue): KubeObject {
  const value = kv.value as KubeObject;
  return { ...value, kind: def.kind, apiVersion: apiVersionOf(def), metadata: { ...value.metadata, resourceVersion: String(kv.modRevision) } };
}

/** A stored object's top level and metadata, copied; below them the same (frozen) values. */
function shallowCopy(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata } };
}

/** What the store keeps: without resourceVersion; a copy, or (`owned`) the caller's values below the top level and metadata. */
function toStored(obj: KubeObject, owned: boolean): KubeObject {
  const copy = owned ? shallowCopy(obj) : structuredClone(obj);
  delete copy.metadata.resourceVersion;
  return copy;
}

/**
 * Unchanged: equal as JSON values, whatever the member order (as kube-apiserver, whose
 * encoding fixes field order and sorts map keys, finds a reordered object unchanged). Compared
 * in place: serialising both objects on every update was one of the write path's main costs.
 */
export function sameObject(a: KubeObject, b: KubeObject): boolean {
  return jsonEqual(a, b);
}

function revisionOf(resourceVersion: string): number {
  const n = Number(resourceVersion);
  if (!Number.isSafeInteger(n) || n < 0) throw new KedgeError('BadRequest', `invalid resourceVersion ${JSON.stringify(resourceVersion)}`);
  return n;
}

function translate(def: ResourceDef, name: string, err: unknown): unknown {
  if (isKedgeError(err, 'NotFound')) return notFound(def, name);
  if (isKedgeError(err, 'Conflict')) return conflict(def, name);
  return err;
}

function qualified(def: Pick<ResourceDef, 'group' | 'resource'>): string {
  return def.group ? `${def.resource}.${def.group}` : def.resource;
}

export function notFound(def: Pick<ResourceDef, 'group' | 'resource'>, name: string): KedgeError {
  return new KedgeError('NotFound', `${qualified(def)} "${name}" not found`, { details: { name, group: def.group, kind: def.resource } });
}

export function alreadyExists(def: ResourceDef, name: string): KedgeError {
  return new KedgeError('AlreadyExists', `${qualified(def)} "${name}" already exists`, { details: { name, group: def.group, kind: def.resource } });
}

export function conflict(def: ResourceDef, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): KedgeError {
  return new KedgeError('Conflict', `Operation cannot be fulfilled on ${qualified(def)} "${name}": ${why}`, { details: { name, group: def.group, kind: def.resource } });
}
