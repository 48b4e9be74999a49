import { describe, expect, it } from 'vitest';
import { ruleAllows, type RequestAttributes } from '../../cloud/apiserver/auth/rbac/rule-match.js';
import type { PolicyRule } from '../../cloud/apiserver/auth/rbac/types.js';
import { compactRules, compactString, uncovered } from '../../cloud/apiserver/auth/rbac/covers.js';

const req = (verb: string, resource?: string, extra: Partial<RequestAttributes> = {}): RequestAttributes => ({ verb, resource, group: '', path: '/x', ...extra });

describe("an RBAC rule matches a request as kube's RuleAllows does", () => {
  const cases: [string, PolicyRule, RequestAttributes, boolean][] = [
    ['a listed verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, req('get', 'pods'), true],
    ['an unlisted verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, req('list', 'pods'), false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, req('deletecollection', 'pods'), true],
    ['another group', { verbs: ['get'], apiGroups: [''], resources: ['deployments'] }, req('get', 'deployments', { group: 'apps' }), false],
    ['apiGroup *', { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, req('get', 'deployments', { group: 'apps' }), true],
    ['a resource does not cover its subresource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, req('get', 'pods', { subresource: 'log' }), false],
    ['pods/log', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, req('get', 'pods', { subresource: 'log' }), true],
    ['pods/log is not pods', { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, req('get', 'pods'), false],
    ['*/scale', { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }, req('update', 'deployments', { group: 'apps', subresource: 'scale' }), true],
    ['*/scale is not */status', { verbs: ['update'], apiGroups: ['apps'], resources: ['*/scale'] }, req('update', 'deployments', { group: 'apps', subresource: 'status' }), false],
    ['resource *', { verbs: ['get'], apiGroups: [''], resources: ['*'] }, req('get', 'pods', { subresource: 'log' }), true],
    ['a named object', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, req('get', 'configmaps', { name: 'a' }), true],
    ['another name', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, req('get', 'configmaps', { name: 'b' }), false],
    ['names never match a list', { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, req('list', 'configmaps'), false],
    ['a non-resource URL', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, req('get', undefined, { path: '/healthz' }), true],
    ['a URL prefix *', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, req('get', undefined, { path: '/apis/apps/v1' }), true],
    ['another URL', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, req('get', undefined, { path: '/metrics' }), false],
    ['a URL rule is no resource rule', { verbs: ['get'], nonResourceURLs: ['*'] }, req('get', 'pods'), false],
    ['a resource rule is no URL rule', { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, req('get', undefined, { path: '/api' }), false],
  ];
  it.each(cases)('%s', (_label, rule, attrs, allowed) => {
    expect(ruleAllows(rule, attrs)).toBe(allowed);
  });
});

describe("escalation: kube's Covers, CompactRules and CompactString", () => {
  it('lists what the owner lacks, one verb at a time, merged per resource', () => {
    const owner: PolicyRule[] = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/apis/*'] }];
    const wanted: PolicyRule[] = [{ verbs: ['get', 'delete', 'patch'], apiGroups: [''], resources: ['pods', 'secrets'] }, { verbs: ['get'], nonResourceURLs: ['/apis/apps', '/metrics'] }];
    const lines = compactRules(uncovered(owner, wanted)).map(compactString).sort();
    expect(lines).toEqual([
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "patch"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "patch"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    ]);
  });

  it('a * asked for is covered only by a *, and names only by the same names or none', () => {
    expect(uncovered([{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }])).toHaveLength(1);
    expect(uncovered([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['*'], apiGroups: [''], resources: ['pods/log'] }])).toEqual([]);
    expect(uncovered([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }])).toHaveLength(1);
    expect(uncovered([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }])).toEqual([]);
  });
});
