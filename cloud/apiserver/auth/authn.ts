import { sha256Hex as digest } from '../../../shared/digest.js';
import { KedgeError } from '../../../shared/errors.js';

/** A caller as authentication established it. */
export interface UserInfo {
  name: string;
  /** "admin" may do everything, "viewer" only read, "node" what a kubelet needs (authz.ts); anything else is refused. */
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

/** Resolves to undefined when no credentials were sent; rejects with Unauthorized when they were sent but are wrong. */
export type Authenticator = (authorization: string | undefined) => Promise<UserInfo | undefined>;

/**
 * Tokens looked up by SHA-256 digest, so the comparison does not leak how much of a token
 * matched. Earlier entries win over later ones with the same token.
 */
export class TokenTable {
  private readonly byDigest = new Map<string, TokenEntry>();

  constructor(tokens: readonly TokenEntry[]) {
    for (const t of tokens) if (!this.byDigest.has(digest(t.token))) this.byDigest.set(digest(t.token), t);
  }

  find(token: string): TokenEntry | undefined {
    return this.byDigest.get(digest(token));
  }
}

/** Bearer-token authentication against a fixed table. */
export function tokenAuthenticator(tokens: readonly TokenEntry[]): Authenticator {
  const table = new TokenTable(tokens);
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    const entry = table.find(token);
    if (!entry) throw unauthorized();
    return userOf(entry);
  };
}

/**
 * The token of an Authorization header: undefined when none was sent; throws Unauthorized
 * for a header that is not "Bearer <token>".
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.trim() === '') return undefined;
  const token = bearerOf(authorization);
  if (token === undefined) throw unauthorized();
  return token;
}

/** The token of an Authorization header "Bearer <token>"; undefined for none or any other header. */
export function bearerOf(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/** The user a dashboard session stands for, or undefined when there is no such session. */
export type SessionLookup = (sessionId: string) => UserInfo | undefined;

/**
 * The group of every dashboard session's user (cloud/dashboard/logins.ts): a session acts as
 * the admin who minted its login token, but may not mint credentials or take the store.
 */
export const DASHBOARD_SESSION_GROUP = 'kedge:dashboard-sessions';

/**
 * The user of a dashboard session sent as the bearer token (cloud/dashboard/), or undefined
 * when the request sends none or its token is no session (then the token table decides).
 */
export function sessionBearerUser(authorization: string | undefined, lookup: SessionLookup): UserInfo | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : lookup(token);
}

export function userOf(entry: TokenEntry): UserInfo {
  return { name: entry.user, role: entry.role, groups: [...(entry.groups ?? []), 'system:authenticated'] };
}

export function unauthorized(): KedgeError {
  return new KedgeError('Unauthorized', 'Unauthorized');
}
