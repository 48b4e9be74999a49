import { createHash } from 'node:crypto';
import { KedgeError } from '../../shared/errors.js';

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
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) throw unauthorized();
  return m[1]!;
}

/** The dashboard's session cookie (HttpOnly, SameSite=Strict; see cloud/dashboard/). */
export const SESSION_COOKIE = 'kedge-session';
/**
 * A request authenticated by the session cookie that changes anything must carry this header:
 * a page on another site can make a browser send the cookie, but not a custom header.
 */
export const CSRF_HEADER = 'x-kedge-dashboard';

/** The user a dashboard session stands for, or undefined when there is no such session. */
export type SessionLookup = (sessionId: string) => UserInfo | undefined;

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The user of the request's session cookie: undefined when it sends none; Unauthorized for a
 * session that is unknown or gone; Forbidden for a state-changing request without CSRF_HEADER.
 */
export function sessionCookieUser(req: { method: string; headers: Record<string, string | undefined> }, lookup: SessionLookup): UserInfo | undefined {
  const sessionId = cookieValue(req.headers.cookie, SESSION_COOKIE);
  if (sessionId === undefined) return undefined;
  const user = lookup(sessionId);
  if (!user) throw unauthorized();
  if (!safeMethods.has(req.method.toUpperCase()) && req.headers[CSRF_HEADER] === undefined) {
    throw new KedgeError('Forbidden', `a request that changes state with the dashboard's session cookie needs the ${CSRF_HEADER} header`);
  }
  return user;
}

/** One cookie's value from a Cookie header (undefined when absent or empty). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

export function userOf(entry: TokenEntry): UserInfo {
  return { name: entry.user, role: entry.role, groups: [...(entry.groups ?? []), 'system:authenticated'] };
}

export function unauthorized(): KedgeError {
  return new KedgeError('Unauthorized', 'Unauthorized');
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
