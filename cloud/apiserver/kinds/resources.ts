import type { Namespace, Node } from '../../../shared/types.js';
import { appsResources } from './apps-resources.js';
import { batchResources } from './batch-resources.js';
import { configMapResource, secretResource } from './config-resources.js';
import { daemonSetResources } from './daemonset-resources.js';
import { eventResource } from './event-resource.js';
import { nodeSyncResource } from './nodesync-resource.js';
import { statefulSetResource } from './statefulset-resources.js';
import { clusterObjectResources } from './cluster-object-resources.js';
import { checkNodeTypes } from './node-decoding.js';
import { normalizePodCIDRs, providerIDUnchanged, validatePodCIDRs } from './node-validation.js';
import { leaseResource, runtimeClassResource } from './node-resources.js';
import { podStrategy } from './pod-admission.js';
import { normalizeNodeQuantities, validateNodeQuantities } from '../admission/quantity-validation.js';
import { namespacePrinter, nodePrinter, podPrinter } from './printers.js';
import type { ResourceDef, ResourceStrategy } from './registry.js';
import { endpointsResource, serviceResource } from './service-resource.js';
import { storageResources } from './storage-resources.js';
import { rbacResources } from './rbac-resources.js';
import { serviceAccountResource } from './serviceaccount-resource.js';

/**
 * The resource table. Adding a kind (Deployments, Services, …) is one more entry here,
 * plus a printer and a strategy when it needs them.
 */
const namespaceStrategy: ResourceStrategy = {
  nameIsLabel: true,
  defaultOnCreate(obj) {
    const ns = obj as Namespace;
    ns.metadata.labels = { ...ns.metadata.labels, 'kubernetes.io/metadata.name': ns.metadata.name ?? '' };
    ns.spec = { finalizers: ns.spec?.finalizers ?? ['kubernetes'] };
    ns.status = { phase: 'Active' };
  },
  fields: (obj) => ({ 'status.phase': (obj as Namespace).status?.phase ?? '' }),
};

const nodeStrategy: ResourceStrategy = {
  normalize(obj) {
    normalizeNodeQuantities((obj as Node).status);
    checkNodeTypes(obj);
    normalizePodCIDRs(obj as Node);
  },
  validate: (obj, ctx) => [...validateNodeQuantities((obj as Node).status), ...validatePodCIDRs(obj as Node, ctx), ...providerIDUnchanged(obj as Node, ctx)],
  fields: (obj) => ({ 'spec.unschedulable': String((obj as Node).spec?.unschedulable ?? false) }),
};

const status = { name: 'status', verbs: ['get', 'patch', 'update'] };
/** policy/v1 Eviction, as kubectl drain looks for it in /api/v1 (honouring PodDisruptionBudgets: see eviction.ts). */
const eviction = { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] };
/** exec, attach and portforward: WebSocket upgrades (cloud/apiserver/streams/), listed as kube lists them. */
const podConnections = (['attach', 'exec', 'portforward'] as const).map((name) => ({
  name, kind: `Pod${name === 'portforward' ? 'PortForward' : name[0]!.toUpperCase() + name.slice(1)}Options`, verbs: ['create', 'get'], connect: true,
}));
/** ConfigMaps, Secrets (core), Leases (coordination.k8s.io) and RuntimeClasses (node.k8s.io). */
const configResources: ResourceDef[] = [configMapResource, secretResource, leaseResource, runtimeClassResource];

export const coreResources: ResourceDef[] = [
  {
    group: '', version: 'v1', resource: 'namespaces', singular: 'namespace', kind: 'Namespace', namespaced: false,
    shortNames: ['ns'], categories: [], subresources: [status, { name: 'finalize', verbs: ['update'] }], printer: namespacePrinter, strategy: namespaceStrategy,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], // as kube: no deletecollection of namespaces
  },
  {
    group: '', version: 'v1', resource: 'nodes', singular: 'node', kind: 'Node', namespaced: false,
    shortNames: ['no'], categories: [], subresources: [status], printer: nodePrinter, strategy: nodeStrategy,
  },
  {
    group: '', version: 'v1', resource: 'pods', singular: 'pod', kind: 'Pod', namespaced: true,
    shortNames: ['po'], categories: ['all'], printer: podPrinter, strategy: podStrategy,
    subresources: [status, { name: 'binding', kind: 'Binding', verbs: ['create'] }, eviction, { name: 'log', kind: 'Pod', verbs: ['get'] }, ...podConnections],
  },
  eventResource,
  serviceResource,
  endpointsResource,
  ...appsResources,
  ...daemonSetResources,
  statefulSetResource,
  ...batchResources,
  ...configResources,
  ...storageResources,
  ...clusterObjectResources,
  serviceAccountResource,
  ...rbacResources,
];

/** Everything the cloud serves: the core kinds plus kedge's own (sync.kedge.io NodeSync). */
export const clusterResources: ResourceDef[] = [...coreResources, nodeSyncResource];
