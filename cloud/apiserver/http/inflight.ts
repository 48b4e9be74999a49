import { KedgeError } from '../../../shared/errors.js';
import type { UserInfo } from '../auth/authn.js';
import { parseApiPath } from '../rest/paths.js';
import type { ApiRequest } from '../request.js';

/**
 * How many requests the API serves at once, as kube-apiserver's --max-requests-inflight (400
 * reads) and --max-mutating-requests-inflight (200 writes). Past them a request is refused
 * with 429, before its body is read.
 */
export interface InflightLimits {
  readOnly: number;
  mutating: number;
}

export const KUBE_INFLIGHT_LIMITS: InflightLimits = { readOnly: 400, mutating: 200 };

type InflightKind = keyof InflightLimits;

/** Subresources kube counts as long-running (with watches): not held to the in-flight limits. */
const longRunningSubresources = new Set(['log', 'exec', 'attach', 'portforward', 'proxy']);

/** kube's group of super-users, who always get an answer (the cloud's own components are in it). */
const PRIVILEGED_GROUP = 'system:masters';

/** Takes an in-flight slot for a request, or refuses it (429); the returned function gives the slot back. */
export type Inflight = (user: UserInfo, head: ApiRequest, path: string) => () => void;

export function inflightLimiter(limits: InflightLimits): Inflight {
  const counts: Record<InflightKind, number> = { readOnly: 0, mutating: 0 };
  return (user, head, path) => {
    const kind = inflightKind(head, path);
    if (kind === undefined || user.groups.includes(PRIVILEGED_GROUP)) return () => {};
    if (counts[kind] >= limits[kind]) throw tooManyRequests();
    counts[kind]++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      counts[kind]--;
    };
  };
}

/** Reads (GET, HEAD) and writes count apart; watches and streams not at all, as in kube. */
function inflightKind(head: ApiRequest, path: string): InflightKind | undefined {
  const parsed = parseApiPath(path);
  if (parsed.kind === 'resource') {
    const watch = head.query.get('watch');
    if (parsed.path.watchPrefix || watch === 'true' || watch === '1') return undefined;
    if (parsed.path.subresource !== undefined && longRunningSubresources.has(parsed.path.subresource)) return undefined;
  }
  const method = head.method.toUpperCase();
  return method === 'GET' || method === 'HEAD' ? 'readOnly' : 'mutating';
}

/** kube's words for it (its max-in-flight filter answers with Retry-After: 1). */
export function tooManyRequests(): KedgeError {
  return new KedgeError('TooManyRequests', 'Too many requests, please try again later.', { details: { retryAfterSeconds: 1 } });
}
