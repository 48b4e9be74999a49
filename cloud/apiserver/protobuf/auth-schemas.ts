import { LabelSelector, ObjectMeta, type Schema } from './schemas.js';

/**
 * The protobuf messages of k8s.io/api rbac/v1, authorization/v1 and authentication/v1 (and
 * core/v1 ServiceAccount) that kubectl sends: `create role|clusterrole|rolebinding|
 * clusterrolebinding|serviceaccount`, `auth can-i` and `auth whoami`.
 */

const PolicyRule: Schema = [
  [1, 'verbs', { list: 'string' }],
  [2, 'apiGroups', { list: 'string' }],
  [3, 'resources', { list: 'string' }],
  [4, 'resourceNames', { list: 'string' }],
  [5, 'nonResourceURLs', { list: 'string' }],
];

const Subject: Schema = [
  [1, 'kind', 'string'],
  [2, 'apiGroup', 'string'],
  [3, 'name', 'string'],
  [4, 'namespace', 'string'],
];

const RoleRef: Schema = [
  [1, 'apiGroup', 'string'],
  [2, 'kind', 'string'],
  [3, 'name', 'string'],
];

const binding: Schema = [
  [1, 'metadata', ObjectMeta],
  [2, 'subjects', { list: Subject }],
  [3, 'roleRef', RoleRef],
];

const ResourceAttributes: Schema = [
  [1, 'namespace', 'string'],
  [2, 'verb', 'string'],
  [3, 'group', 'string'],
  [4, 'version', 'string'],
  [5, 'resource', 'string'],
  [6, 'subresource', 'string'],
  [7, 'name', 'string'],
];

const NonResourceAttributes: Schema = [
  [1, 'path', 'string'],
  [2, 'verb', 'string'],
];

export const authSchemas: Readonly<Record<string, Schema>> = {
  'rbac.authorization.k8s.io/v1 Role': [
    [1, 'metadata', ObjectMeta],
    [2, 'rules', { list: PolicyRule }],
  ],
  'rbac.authorization.k8s.io/v1 ClusterRole': [
    [1, 'metadata', ObjectMeta],
    [2, 'rules', { list: PolicyRule }],
    [3, 'aggregationRule', [[1, 'clusterRoleSelectors', { list: LabelSelector }]]],
  ],
  'rbac.authorization.k8s.io/v1 RoleBinding': binding,
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': binding,
  'v1 ServiceAccount': [
    [1, 'metadata', ObjectMeta],
    [4, 'automountServiceAccountToken', 'bool', 'pointer'],
  ],
  'authorization.k8s.io/v1 SelfSubjectAccessReview': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', [[1, 'resourceAttributes', ResourceAttributes], [2, 'nonResourceAttributes', NonResourceAttributes]]],
  ],
  'authorization.k8s.io/v1 SelfSubjectRulesReview': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', [[1, 'namespace', 'string']]],
  ],
  'authentication.k8s.io/v1 SelfSubjectReview': [[1, 'metadata', ObjectMeta]],
};
