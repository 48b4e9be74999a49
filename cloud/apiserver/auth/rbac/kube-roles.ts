import type { PolicyRule } from './types.js';

/** The rules of kube's aggregate-to-{admin,edit,view} ClusterRoles (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, 1.32). */

const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const readWrite = [...read, ...write];
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ apiGroups, resources, verbs });

export const aggregateToAdminRules: PolicyRule[] = [
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  rule(readWrite, ['rbac.authorization.k8s.io'], ['rolebindings', 'roles']),
];

export const aggregateToEditRules: PolicyRule[] = [
  rule(read, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(write, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['pods/eviction']),
  rule(write, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(write, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
  rule(write, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(write, ['batch'], ['cronjobs', 'jobs']),
  rule(write, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
  rule(write, ['policy'], ['poddisruptionbudgets']),
  rule(write, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
  rule(readWrite, ['coordination.k8s.io'], ['leases']),
];

/** view leaves Secrets out: their data are credentials. */
export const aggregateToViewRules: PolicyRule[] = [
  rule(read, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
  rule(read, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
  rule(read, [''], ['namespaces']),
  rule(read, ['discovery.k8s.io'], ['endpointslices']),
  rule(read, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
  rule(read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(read, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(read, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
  rule(read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(read, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

export const clusterAdminRules: PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
];

export const basicUserRules: PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
];

export const discoveryRules: PolicyRule[] = [
  { nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] },
];

export const publicInfoViewerRules: PolicyRule[] = [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }];
