import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { UserInfo } from '../apiserver/authn.js';

/** How long a login token may wait to be used. */
export const LOGIN_TOKEN_TTL_MS = 60 * 60_000;
/** At most this many unused login tokens and this many sessions are kept; the oldest go first. */
export const MAX_PENDING_LOGINS = 100;
export const MAX_SESSIONS = 100;

export interface LoginToken {
  token: string;
  /** ISO time after which it no longer works. */
  expiresAt: string;
}

interface Pending {
  user: UserInfo;
  expiresAt: number;
}

/**
 * The dashboard's logins: one-time login tokens (minted by an admin, e.g. `kedge demo`) that a
 * browser exchanges once for a session, and the sessions, which live as long as the cloud
 * process. Both are kept by SHA-256 digest only.
 */
export class DashboardLogins {
  private readonly pending = new Map<string, Pending>();
  private readonly sessions = new Map<string, UserInfo>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = LOGIN_TOKEN_TTL_MS,
  ) {}

  /** A new login token that will log a browser in as `user`. */
  mint(user: UserInfo): LoginToken {
    this.dropExpired();
    const token = randomBytes(24).toString('base64url');
    const expiresAt = this.clock.now() + this.ttlMs;
    keepBounded(this.pending, MAX_PENDING_LOGINS - 1);
    this.pending.set(digest(token), { user, expiresAt });
    return { token, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Spends a login token: a new session id, or undefined when the token is unknown, spent or expired. */
  redeem(token: string): string | undefined {
    const key = digest(token);
    const login = this.pending.get(key);
    this.pending.delete(key);
    if (!login || login.expiresAt <= this.clock.now()) return undefined;
    const sessionId = randomBytes(32).toString('base64url');
    keepBounded(this.sessions, MAX_SESSIONS - 1);
    this.sessions.set(digest(sessionId), login.user);
    return sessionId;
  }

  /** The user of a session, or undefined when there is none. */
  sessionUser(sessionId: string): UserInfo | undefined {
    return this.sessions.get(digest(sessionId));
  }

  private dropExpired(): void {
    const now = this.clock.now();
    for (const [key, login] of this.pending) if (login.expiresAt <= now) this.pending.delete(key);
  }
}

/** Removes the oldest entries until at most `size` remain (a Map iterates in insertion order). */
function keepBounded(map: Map<string, unknown>, size: number): void {
  for (const key of map.keys()) {
    if (map.size <= size) return;
    map.delete(key);
  }
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
