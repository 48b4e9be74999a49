import { isKedgeError } from '../../shared/errors.js';
import type { Service } from '../../shared/service-types.js';
import type { Namespace } from '../../shared/types.js';
import type { ApiClient } from './client.js';
import { firstServiceIP } from './service-ranges.js';

/** The namespaces every cluster has from the start. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-node-lease', 'kube-public'] as const;

/** Creates the system namespaces that do not exist yet (idempotent; run at every cloud start). */
export async function ensureSystemNamespaces(client: ApiClient): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await client.create<Namespace>({ resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if (!isKedgeError(err, 'AlreadyExists')) throw err;
    }
  }
}

/**
 * The `kubernetes` Service in `default` that every cluster has: the first address of the
 * service range, port 443 (https) to the apiserver's 6443, as kube-apiserver creates it.
 * Idempotent; run at every cloud start after ensureSystemNamespaces.
 */
export async function ensureKubernetesService(client: ApiClient): Promise<void> {
  const service: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: firstServiceIP(),
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
      sessionAffinity: 'None',
    },
  };
  try {
    await client.create<Service>({ resource: 'services', namespace: 'default' }, service);
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists')) throw err;
  }
}
