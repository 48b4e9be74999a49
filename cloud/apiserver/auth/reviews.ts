import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { invalid } from '../admission/admission.js';
import { decodeObject } from '../http/request-body.js';
import { apiVersionOf } from '../kinds/registry.js';
import { jsonResponse, methodNotAllowed, type ApiResponse } from '../request.js';
import type { RoutedCall } from '../rest/rest-handler.js';
import type { UserInfo } from './authn.js';
import { authorize, effectiveGroups, isPrivileged, type Attributes } from './authz.js';
import { nodeNameOf } from './node-authz.js';
import { rulesFor } from './rbac/evaluate.js';
import type { PolicyRule, RuleSource } from './rbac/types.js';
import { isReviewKind } from './review-kinds.js';

interface ResourceAttributes { namespace?: string; verb?: string; group?: string; resource?: string; subresource?: string; name?: string }
interface NonResourceAttributes { path?: string; verb?: string }
interface ReviewSpec { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: NonResourceAttributes; namespace?: string }

/** Answers a review kind's create (undefined for any other kind): the caller's identity, or what it may do. */
export async function serveReview(call: RoutedCall, rules: RuleSource): Promise<ApiResponse | undefined> {
  if (!isReviewKind(call.def)) return undefined;
  if (call.verb !== 'create') throw methodNotAllowed(call.req.method, call.req.path);
  const body = decodeObject(call.req) as KubeObject & { spec?: ReviewSpec };
  const spec = body.spec ?? {};
  const answer = (status: unknown, withSpec = true): ApiResponse =>
    jsonResponse(201, { kind: call.def.kind, apiVersion: apiVersionOf(call.def), metadata: { creationTimestamp: null }, ...(withSpec && { spec }), status });
  if (call.def.resource === 'selfsubjectreviews') return answer({ userInfo: { username: call.user.name, groups: effectiveGroups(call.user) } }, false);
  if (call.def.resource === 'selfsubjectaccessreviews') return answer(await accessReview(call, spec, rules));
  return answer(await rulesReview(call.user, spec.namespace ?? '', rules));
}

/** kube's SelfSubjectAccessReview: whether the caller may do what the spec asks, and the authorizers' reason when not. */
async function accessReview(call: RoutedCall, spec: ReviewSpec, rules: RuleSource): Promise<{ allowed: boolean; reason?: string }> {
  const { resourceAttributes: ra, nonResourceAttributes: nra } = spec;
  if (!ra === !nra) {
    throw invalid(call.def, '', [{ reason: 'FieldValueInvalid', field: 'spec.resourceAttributes', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified' }]);
  }
  const attrs: Attributes = ra
    ? { verb: ra.verb ?? '', resource: ra.resource ?? '', subresource: ra.subresource || undefined, group: ra.group ?? '', namespace: ra.namespace || undefined, name: ra.name || undefined, path: '' }
    : { verb: nra?.verb ?? '', path: nra?.path ?? '' };
  try {
    await authorize(call.user, attrs, undefined, rules);
    return { allowed: true };
  } catch (err) {
    if (!(err instanceof KedgeError) || err.code !== 'Forbidden') throw err;
    const reason = / in the namespace "[^"]*": (.*)$| at the cluster scope: (.*)$/.exec(err.message);
    return { allowed: false, ...(reason && { reason: reason[1] ?? reason[2] }) };
  }
}

/**
 * kube's SelfSubjectRulesReview: the rules the caller holds in the namespace. system:masters
 * holds everything; a node's are not enumerable (the Node authorizer's), so the answer is
 * incomplete, as kube's is.
 */
async function rulesReview(user: UserInfo, namespace: string, rules: RuleSource): Promise<unknown> {
  const held: PolicyRule[] = isPrivileged(user) ? [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }] : [];
  held.push(...(await rulesFor(rules, { name: user.name, groups: effectiveGroups(user) }, namespace)));
  const node = user.role === 'node' && nodeNameOf(user) !== undefined;
  return {
    resourceRules: held.filter((r) => !r.nonResourceURLs?.length).map(({ verbs, apiGroups, resources, resourceNames }) => ({ verbs, ...(apiGroups && { apiGroups }), ...(resources && { resources }), ...(resourceNames && { resourceNames }) })),
    nonResourceRules: held.filter((r) => r.nonResourceURLs?.length).map(({ verbs, nonResourceURLs }) => ({ verbs, nonResourceURLs })),
    incomplete: node,
    ...(node && { evaluationError: 'node authorizer does not support user rule resolution' }),
  };
}
