import { createHash } from 'node:crypto';
import { KedgeError } from '../../shared/errors.js';

/** A caller as authentication established it. */
export interface UserInfo {
  name: string;
  /** "admin" may do everything, "viewer" only read; anything else is refused. */
  role: string;
  groups: string[];
}

/** One static bearer token and the user it stands for. */
export interface TokenEntry {
  token: string;
  user: string;
  role: string;
  groups?: string[];
}

export const anonymousUser: UserInfo = { name: 'system:anonymous', role: 'anonymous', groups: ['system:unauthenticated'] };

export type Authenticator = (authorization: string | undefined) => UserInfo | undefined;

/**
 * Bearer-token authentication against a fixed table (looked up by SHA-256 digest, so the
 * comparison does not leak how much of a token matched). Returns undefined when no credentials
 * were sent and throws Unauthorized when they were sent but are wrong.
 */
export function tokenAuthenticator(tokens: readonly TokenEntry[]): Authenticator {
  const table = new Map(tokens.map((t) => [digest(t.token), t]));
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === '') return undefined;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const entry = m ? table.get(digest(m[1]!)) : undefined;
    if (!entry) throw unauthorized();
    return { name: entry.user, role: entry.role, groups: [...(entry.groups ?? []), 'system:authenticated'] };
  };
}

export function unauthorized(): KedgeError {
  return new KedgeError('Unauthorized', 'Unauthorized');
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
