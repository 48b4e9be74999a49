import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, apiFixture } from '../support/api-fixture.js';

/** kedge does not impersonate: kubectl's --as, --as-group, --as-uid and extras are refused, never served as the sender. */
describe('impersonation headers', () => {
  it('refuse the request with 403, naming what was asked for', async () => {
    const f = await apiFixture();
    const ask = async (headers: Record<string, string>): Promise<{ status: number; message?: string }> => {
      const res = await f.api.handle({ method: 'GET', path: '/api/v1/namespaces/default/pods', query: new URLSearchParams(), headers: { accept: 'application/json', authorization: `Bearer ${ADMIN_TOKEN}`, ...headers } });
      return { status: res.status, message: res.type === 'json' ? (res.body as { message?: string }).message : undefined };
    };
    expect((await ask({})).status).toBe(200);
    const suffix = 'in API group "" at the cluster scope: kedge does not support impersonation';
    expect(await ask({ 'impersonate-user': 'nobody' })).toEqual({ status: 403, message: `users "nobody" is forbidden: User "admin" cannot impersonate resource "users" ${suffix}` });
    expect(await ask({ 'impersonate-group': 'system:masters' })).toEqual({ status: 403, message: `groups "system:masters" is forbidden: User "admin" cannot impersonate resource "groups" ${suffix}` });
    expect((await ask({ 'impersonate-uid': '42' })).status).toBe(403);
    expect((await ask({ 'impersonate-extra-scopes': 'view' })).status).toBe(403);
  });
});
