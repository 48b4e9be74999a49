import { isKedgeError } from '../../shared/errors.js';
import type { Namespace } from '../../shared/types.js';
import type { ApiClient } from './client.js';

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
