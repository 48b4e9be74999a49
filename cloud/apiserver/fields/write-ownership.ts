import type { KubeObject } from '../../../shared/types.js';
import type { ResourceCall } from '../rest/rest-context.js';
import { recordUpdate, scopeOf, type Subresource } from './field-manager.js';
import { managerOrUserAgent } from './managed-fields.js';

/** The field manager of a create, update or patch: `fieldManager`, else the user agent's product. */
export function requestManager(call: ResourceCall): string {
  const agent = call.req.headers['user-agent'];
  return managerOrUserAgent(call.req.query.get('fieldManager'), Array.isArray(agent) ? agent[0] : agent);
}

/** Records the request's Update on `next`, the object about to be stored (`live` absent on create). */
export function recordRequestUpdate(call: ResourceCall, live: KubeObject | undefined, next: KubeObject, now: number, subresource?: Subresource): KubeObject {
  recordUpdate(scopeOf(call.def, subresource), live, next, requestManager(call), now);
  return next;
}
