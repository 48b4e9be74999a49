import { describe, expect, it } from 'vitest';
import { DashboardLogins, LOGIN_TOKEN_TTL_MS, MAX_PENDING_LOGINS, MAX_SESSIONS, SESSION_IDLE_MS } from '../../cloud/dashboard/logins.js';
import { FakeClock } from '../../shared/clock.js';
import { DASHBOARD_SESSION_GROUP } from '../../cloud/apiserver/auth/authn.js';

const admin = { name: 'kedge-admin', role: 'admin', groups: ['system:authenticated'] };
/** The user a session of `admin` stands for. */
const asSession = { ...admin, groups: [...admin.groups, DASHBOARD_SESSION_GROUP] };

describe('dashboard logins', () => {
  it('spends a login token once, for a session that stands for the user who minted it', () => {
    const logins = new DashboardLogins(new FakeClock());
    const { token } = logins.mint(admin);
    const session = logins.redeem(token);
    expect(session).toBeDefined();
    expect(logins.sessionUser(session!)).toEqual(asSession);
    expect(logins.redeem(token)).toBeUndefined();
    expect(logins.sessionUser(token)).toBeUndefined();
    expect(logins.sessionUser('made-up')).toBeUndefined();
  });

  it('refuses a token past its expiry, and says when that is', async () => {
    const clock = new FakeClock();
    const logins = new DashboardLogins(clock);
    const first = logins.mint(admin);
    const second = logins.mint(admin);
    expect(Date.parse(first.expiresAt)).toBe(clock.now() + LOGIN_TOKEN_TTL_MS);
    await clock.advance(LOGIN_TOKEN_TTL_MS - 1);
    expect(logins.redeem(first.token)).toBeDefined();
    await clock.advance(1);
    expect(logins.redeem(second.token)).toBeUndefined();
  });

  it('ends a session left unused for SESSION_IDLE_MS, and keeps one in use alive', async () => {
    const clock = new FakeClock();
    const logins = new DashboardLogins(clock);
    const used = logins.redeem(logins.mint(admin).token)!;
    const idle = logins.redeem(logins.mint(admin).token)!;
    await clock.advance(SESSION_IDLE_MS - 1);
    expect(logins.sessionUser(used)).toEqual(asSession);
    await clock.advance(SESSION_IDLE_MS - 1);
    expect(logins.sessionUser(used)).toEqual(asSession);
    expect(logins.sessionUser(idle)).toBeUndefined();
  });

  it('keeps a bounded number of unused tokens and of sessions, dropping the oldest', () => {
    const logins = new DashboardLogins(new FakeClock());
    const tokens = Array.from({ length: MAX_PENDING_LOGINS + 1 }, () => logins.mint(admin).token);
    expect(logins.redeem(tokens[0]!)).toBeUndefined();
    expect(logins.redeem(tokens[1]!)).toBeDefined();
    const sessions = Array.from({ length: MAX_SESSIONS + 1 }, () => logins.redeem(logins.mint(admin).token)!);
    expect(logins.sessionUser(sessions[0]!)).toBeUndefined();
    expect(logins.sessionUser(sessions[MAX_SESSIONS]!)).toEqual(asSession);
  });
});
