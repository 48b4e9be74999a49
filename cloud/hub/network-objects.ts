import type { Endpoints, Service } from '../../shared/service-types.js';
import type { KubeObject, Node, ObjectMeta } from '../../shared/types.js';

/**
 * [SYNC-19] What of a Service, an Endpoints or a Node goes down to an edge: what kube-proxy,
 * service env vars and the network plugin read, without managedFields, annotations and the
 * rest of the metadata (a Node's status, which changes every heartbeat, least of all).
 */
function syncedMeta(meta: ObjectMeta): ObjectMeta {
  const { name, namespace, uid, resourceVersion, labels } = meta;
  return { name, ...(namespace !== undefined ? { namespace } : {}), uid, resourceVersion, ...(labels ? { labels } : {}) };
}

export const trimService = (s: Service): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: syncedMeta(s.metadata), spec: s.spec, ...(s.status ? { status: s.status } : {}) });

export const trimEndpoints = (e: Endpoints): Endpoints => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: syncedMeta(e.metadata), ...(e.subsets ? { subsets: e.subsets } : {}) });

export const trimNode = (n: Node): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: syncedMeta(n.metadata), spec: n.spec ?? {} });

/**
 * Which nodes a Service (and the Endpoints of its name) reaches [SYNC-19]:
 * - 'everyone': a NodePort or LoadBalancer Service (a node port answers on every node), and
 *   `default/kubernetes`;
 * - 'namespace': a ClusterIP Service, on the nodes running at least one pod of its namespace;
 * - 'nobody': a headless or ExternalName Service (kube-proxy makes no rules for them, and
 *   kubelet gives pods no env vars for them), and Endpoints without a Service of their name.
 */
export type Audience = 'everyone' | 'namespace' | 'nobody';

export function audienceOf(namespace: string, name: string, service: Service | undefined): Audience {
  if (namespace === 'default' && name === 'kubernetes') return 'everyone';
  if (!service) return 'nobody';
  const { type = 'ClusterIP', clusterIP } = service.spec ?? {};
  if (type === 'NodePort' || type === 'LoadBalancer') return 'everyone';
  if (type === 'ExternalName' || clusterIP === 'None') return 'nobody';
  return 'namespace';
}

/** Whether two Nodes differ in what an edge is sent of them: labels or spec. */
export const sameSyncedNode = (a: KubeObject & { spec?: unknown }, b: KubeObject & { spec?: unknown }): boolean =>
  JSON.stringify([a.metadata.labels ?? {}, a.spec ?? {}]) === JSON.stringify([b.metadata.labels ?? {}, b.spec ?? {}]);
