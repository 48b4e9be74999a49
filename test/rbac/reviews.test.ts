import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, NODE_TOKEN, ODD_TOKEN, VIEWER_TOKEN, apiFixture } from '../support/api-fixture.js';

const ssar = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const ssrr = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
const ssr = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

interface Answer { kind: string; status: { allowed?: boolean; userInfo?: unknown; resourceRules?: { verbs: string[]; resources?: string[] }[]; nonResourceRules?: unknown[]; incomplete?: boolean } }

describe('SelfSubjectAccessReview, SelfSubjectRulesReview and SelfSubjectReview', () => {
  it('answers whether the caller may do something, as the authorizer would decide', async () => {
    const f = await apiFixture();
    const can = async (token: string, verb: string, resource: string) =>
      (await f.json<Answer>('POST', ssar, { token, body: { spec: { resourceAttributes: { namespace: 'default', verb, resource } } } })).body.status.allowed;
    expect(await can(ADMIN_TOKEN, 'create', 'pods')).toBe(true);
    expect(await can(VIEWER_TOKEN, 'create', 'pods')).toBe(false);
    expect(await can(VIEWER_TOKEN, 'list', 'pods')).toBe(true);
    expect(await can(VIEWER_TOKEN, 'get', 'secrets')).toBe(false);
    const path = await f.json<Answer>('POST', ssar, { token: VIEWER_TOKEN, body: { spec: { nonResourceAttributes: { verb: 'get', path: '/metrics' } } } });
    expect([path.status, path.body.kind, path.body.status.allowed]).toEqual([201, 'SelfSubjectAccessReview', true]);
    expect((await f.json('POST', ssar, { token: VIEWER_TOKEN, body: { spec: {} } })).status).toBe(422);
    expect((await f.json('GET', ssar)).status).toBe(405);
  });

  it("lists the caller's rules in a namespace: everything for system:masters, view's and more for a viewer, incomplete for a node", async () => {
    const f = await apiFixture();
    const rules = async (token: string) => (await f.json<Answer>('POST', ssrr, { token, body: { spec: { namespace: 'default' } } })).body.status;
    expect((await rules(ADMIN_TOKEN)).resourceRules).toContainEqual({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
    const viewer = await rules(VIEWER_TOKEN);
    expect(viewer.resourceRules?.some((r) => r.resources?.includes('pods/log') && r.verbs.includes('get'))).toBe(true);
    expect(viewer.resourceRules?.some((r) => r.resources?.includes('secrets'))).toBe(false);
    expect(viewer.resourceRules).toContainEqual({ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] });
    expect(viewer.nonResourceRules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['*'] });
    expect(await rules(NODE_TOKEN)).toMatchObject({ incomplete: true });
  });

  it('tells the caller who it is, with the group its token role stands for', async () => {
    const f = await apiFixture();
    const who = async (token: string) => (await f.json<Answer>('POST', ssr, { token, body: {} })).body;
    expect(await who(ADMIN_TOKEN)).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', status: { userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] } } });
    expect((await who(VIEWER_TOKEN)).status.userInfo).toEqual({ username: 'viewer', groups: ['kedge:viewers', 'system:authenticated'] });
    expect((await f.json('POST', ssr, { token: ODD_TOKEN, body: {} })).status).toBe(403);
  });
});
