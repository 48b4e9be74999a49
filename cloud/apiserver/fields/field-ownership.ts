import type { KubeObject } from '../../../shared/types.js';
import type { ResourceCall } from '../rest/rest-context.js';
import { applyOwnership, type ApplyInput } from './field-apply.js';
import type { Subresource } from './field-manager.js';
import type { MetaWithManagedFields } from './managed-fields.js';
import { recordRequestUpdate } from './write-ownership.js';

/** What the write handlers ask of field ownership: one seam, so that it can be left out whole (benchmarks only). */
export interface FieldOwnership {
  /** Records the request's Update on `next`, the object about to be stored (`live` absent on create). */
  recordUpdate(call: ResourceCall, live: KubeObject | undefined, next: KubeObject, now: number, subresource?: Subresource): KubeObject;
  /** Server-side apply: the object to store, pruned and owned; throws 409 on conflicts. */
  apply(input: ApplyInput): KubeObject;
}

/** kube-apiserver's: managedFields on every write, apply with conflicts and pruning. */
export const trackedFields: FieldOwnership = { recordUpdate: recordRequestUpdate, apply: applyOwnership };

/**
 * No field ownership, as before kedge kept any: no managedFields stored, an apply is the
 * configuration merged onto the live object (nothing pruned, no conflicts). For the benchmark
 * of what ownership costs (bench/api-rules.ts); nothing else turns it off.
 */
export const untrackedFields: FieldOwnership = {
  recordUpdate: (_call, _live, next) => withoutManagedFields(next),
  apply: (input) => withoutManagedFields(input.merged),
};

function withoutManagedFields(obj: KubeObject): KubeObject {
  delete (obj.metadata as MetaWithManagedFields).managedFields;
  return obj;
}
