import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import type { ResourceDef } from '../kinds/registry.js';
import type { ApiRequest } from '../request.js';
import { decodeDeleteOptions } from '../http/request-body.js';
import type { RestDeps } from './rest-context.js';
import { alreadyExists, conflict, ObjectStorage } from './storage.js';

/**
 * `dryRun=All`: the write runs the whole way (admission, validation, allocation, preconditions)
 * against a storage that reads the real one and writes nothing. The answer is what would have
 * been stored: a create keeps its generated uid and creationTimestamp but has no
 * resourceVersion, an update keeps the resourceVersion it was read at.
 */

/** Whether the request asks for a dry run (query, or a DELETE body's DeleteOptions); 422 for values other than All. */
export function isDryRun(req: ApiRequest): boolean {
  const values = [...req.query.getAll('dryRun'), ...fromDeleteBody(req)];
  const unsupported = values.find((v) => v !== 'All');
  if (unsupported !== undefined) {
    throw new KedgeError('Invalid', `dryRun: Unsupported value: "${unsupported}": supported values: "All"`);
  }
  return values.length > 0;
}

function fromDeleteBody(req: ApiRequest): string[] {
  if (req.method !== 'DELETE') return [];
  const dryRun = decodeDeleteOptions(req)?.dryRun;
  return Array.isArray(dryRun) ? dryRun.map(String) : [];
}

/** `deps` as they are, or with a storage that writes nothing when the request is a dry run. */
export function depsFor(deps: RestDeps, req: ApiRequest): RestDeps {
  return isDryRun(req) ? { ...deps, storage: new DryRunStorage(deps.storage, deps.store) } : deps;
}

class DryRunStorage extends ObjectStorage {
  constructor(private readonly real: ObjectStorage, store: RestDeps['store']) {
    super(store);
  }

  override get revision(): number {
    return this.real.revision;
  }

  override exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.real.exclusive(name, fn);
  }

  override async reserve(): Promise<void> {}

  override async create(def: ResourceDef, obj: KubeObject): Promise<KubeObject> {
    const name = obj.metadata.name!;
    if (await this.real.find(def, obj.metadata.namespace, name)) throw alreadyExists(def, name);
    return structuredClone(obj);
  }

  override async update(def: ResourceDef, obj: KubeObject, expectedResourceVersion: string): Promise<KubeObject> {
    const current = await this.real.get(def, obj.metadata.namespace, obj.metadata.name!);
    if (current.metadata.resourceVersion !== expectedResourceVersion) throw conflict(def, obj.metadata.name!);
    const out = structuredClone(obj);
    out.metadata.resourceVersion = expectedResourceVersion;
    return out;
  }

  override async delete(def: ResourceDef, namespace: string | undefined, name: string, expectedResourceVersion?: string): Promise<KubeObject> {
    const current = await this.real.get(def, namespace, name);
    if (expectedResourceVersion !== undefined && current.metadata.resourceVersion !== expectedResourceVersion) throw conflict(def, name);
    return current;
  }
}
