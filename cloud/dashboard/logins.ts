import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { sha256Hex as digest } from '../../shared/digest.js';
import { DASHBOARD_SESSION_GROUP, type UserInfo } from '../apiserver/index.js';

/** How long a login token may wait to be used. */
export const LOGIN_TOKEN_TTL_MS = 60 * 60_000;
/** A session not used for this long ends (a watch in progress counts as use only when it starts). */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
/** At most this many unused login tokens and this many sessions are kept; the oldest go first. */
export const MAX_PENDING_LOGINS = 100;
export const MAX_SESSIONS = 100;

export interface LoginToken {
  token: string;
  /** ISO time after which it no longer works. */
  expiresAt: string;
}

interface Expiring {
  user: UserInfo;
  expiresAt: number;
}

/**
 * The dashboard's logins: one-time login tokens (minted by an admin, e.g. `kedge demo`) that a
 * browser exchanges once for a session, and the sessions, which end after SESSION_IDLE_MS
 * unused or with the cloud process. Both are kept by SHA-256 digest only. A session's user is
 * its admin in DASHBOARD_SESSION_GROUP, which may not mint login tokens (authz.ts adminTokenOnly).
 */
export class DashboardLogins {
  private readonly pending = new Map<string, Expiring>();
  private readonly sessions = new Map<string, Expiring>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = LOGIN_TOKEN_TTL_MS,
    private readonly sessionIdleMs = SESSION_IDLE_MS,
  ) {}

  /** A new login token that will log a browser in as `user`. */
  mint(user: UserInfo): LoginToken {
    dropExpired(this.pending, this.clock.now());
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
    dropExpired(this.sessions, this.clock.now());
    keepBounded(this.sessions, MAX_SESSIONS - 1);
    const user = { ...login.user, groups: [...login.user.groups, DASHBOARD_SESSION_GROUP] };
    this.sessions.set(digest(sessionId), { user, expiresAt: this.clock.now() + this.sessionIdleMs });
    return sessionId;
  }

  /** The user of a session, or undefined when there is none (or it has ended); using it keeps it alive. */
  sessionUser(sessionId: string): UserInfo | undefined {
    const key = digest(sessionId);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    const now = this.clock.now();
    if (session.expiresAt <= now) {
      this.sessions.delete(key);
      return undefined;
    }
    session.expiresAt = now + this.sessionIdleMs;
    return session.user;
  }
}

function dropExpired(map: Map<string, Expiring>, now: number): void {
  for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
}

/** Removes the oldest entries until at most `size` remain (a Map iterates in insertion order). */
function keepBounded(map: Map<string, unknown>, size: number): void {
  for (const key of map.keys()) {
    if (map.size <= size) return;
    map.delete(key);
  }
}
