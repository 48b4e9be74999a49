import type { ResourceDef } from '../kinds/registry.js';

/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview and SelfSubjectRulesReview, and
 * authentication.k8s.io/v1 SelfSubjectReview: create-only questions about the caller, answered
 * and never stored (reviews.ts).
 */
const review = (group: string, resource: string, kind: string): ResourceDef => ({
  group, version: 'v1', resource, singular: resource.replace(/s$/, ''), kind, namespaced: false, shortNames: [], categories: [], subresources: [], verbs: ['create'],
});

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

export const reviewResources: ResourceDef[] = [
  review(AUTHENTICATION_GROUP, 'selfsubjectreviews', 'SelfSubjectReview'),
  review(AUTHORIZATION_GROUP, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
  review(AUTHORIZATION_GROUP, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
];

export const isReviewKind = (def: ResourceDef): boolean => reviewResources.some((r) => r.group === def.group && r.resource === def.resource);
