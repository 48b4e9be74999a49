import type { Observable } from 'rxjs';
import { isKedgeError } from '../../shared/errors.js';
import type { KubeObject, ObjectList } from '../../shared/types.js';

/**
 * How cloud components talk to the apiserver. The loopback implementation runs the very
 * same pipeline as HTTP requests (authentication, authorization, admission, store), just
 * without a socket. Errors are KedgeErrors carrying the Kubernetes reason as `code`.
 */
export interface ResourceRef {
  /** Plural resource name, e.g. "pods", "nodes", "namespaces". */
  resource: string;
  /** API group; "" (default) is the core group. */
  group?: string;
  namespace?: string;
  name?: string;
  /** e.g. "status" or "binding". */
  subresource?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface WatchOptions extends ListOptions {
  /** Resume after this resourceVersion; omitted or "0" starts with synthetic ADDED events. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
}

export interface ApiWatchEvent<T extends KubeObject = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

/** How a delete treats the object's dependents (metav1.DeletionPropagation). */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/** meta/v1 DeleteOptions, the parts kedge honours. */
export interface DeleteOptions {
  /** Background (default for most kinds), Foreground (dependents first) or Orphan (dependents keep running). */
  propagationPolicy?: PropagationPolicy;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'merge' | 'strategic' | 'json';

export interface CreateOptions {
  /** `dryRun=All`: admitted and validated the whole way, answered as it would be stored, and not stored. */
  dryRun?: boolean;
}

export interface ApiClient {
  get<T extends KubeObject>(ref: ResourceRef): Promise<T>;
  list<T extends KubeObject>(ref: ResourceRef, options?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject>(ref: ResourceRef, body: T, options?: CreateOptions): Promise<T>;
  /** PUT: compare-and-set when body.metadata.resourceVersion is set. */
  replace<T extends KubeObject>(ref: ResourceRef, body: T): Promise<T>;
  patch<T extends KubeObject>(ref: ResourceRef, patch: unknown, type?: PatchType): Promise<T>;
  delete(ref: ResourceRef, options?: DeleteOptions): Promise<unknown>;
  /** Errors with an Expired KedgeError when the resourceVersion is older than the window. */
  watch<T extends KubeObject>(ref: ResourceRef, options?: WatchOptions): Observable<ApiWatchEvent<T>>;
}

/** The object `get` reads, or undefined when there is none (NotFound); other errors pass. */
export async function getOrUndefined<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (isKedgeError(err, 'NotFound')) return undefined;
    throw err;
  }
}
