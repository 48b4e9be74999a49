import { unauthorized, type UserInfo } from '../auth/authn.js';
import { inflightLimiter, type InflightLimits } from './inflight.js';
import { errorResponse, MAX_BODY_BYTES, type ApiRequest, type RequestGate } from '../request.js';

export interface GateDeps {
  /** The caller, from the request's headers: undefined without credentials; throws Unauthorized for wrong ones. */
  authenticate(head: ApiRequest): Promise<UserInfo | undefined>;
  /** For a path anyone may call, the most body it takes; undefined for every other path. */
  anonymousBodyLimit(path: string): number | undefined;
  inflight: InflightLimits;
}

/**
 * Authentication and the in-flight limits, from a request's head, as kube-apiserver's filters
 * run before its handlers read a body: a caller without a valid credential gets 401, one over
 * the limits 429, and neither has made the server hold its body.
 */
export function requestGate(deps: GateDeps): RequestGate {
  const enter = inflightLimiter(deps.inflight);
  return async (head) => {
    const path = trimmedPath(head.path);
    const anonymous = deps.anonymousBodyLimit(path);
    if (anonymous !== undefined) return { maxBodyBytes: anonymous, done: () => {} };
    try {
      const user = await deps.authenticate(head);
      if (!user) throw unauthorized();
      return { maxBodyBytes: MAX_BODY_BYTES, done: enter(user, head, path) };
    } catch (err) {
      return { refusal: errorResponse(err) };
    }
  };
}

/** The path without trailing slashes ("/healthz/" is "/healthz"). */
export function trimmedPath(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}
