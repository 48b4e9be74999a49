import type { RuntimeClass } from '../../../shared/config-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import type { Service } from '../../../shared/service-types.js';
import { ANN_DEFAULT_CLASS, LOCAL_PATH_PROVISIONER, STORAGE_GROUP, type StorageClass } from '../../../shared/storage-types.js';
import type { KubeObject, Namespace } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import { firstServiceIP } from './service-ranges.js';

/** Creates `obj` unless an object of its name exists (left as it is). */
export async function createIfAbsent<T extends KubeObject>(client: ApiClient, ref: ResourceRef, obj: T): Promise<void> {
  try {
    await client.create<T>(ref, obj);
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists')) throw err;
  }
}

/** The namespaces every cluster has from the start. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-node-lease', 'kube-public'] as const;

/** Creates the system namespaces that do not exist yet (idempotent; run at every cloud start). */
export async function ensureSystemNamespaces(client: ApiClient): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) await createIfAbsent<Namespace>(client, { resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
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
  await createIfAbsent(client, { resource: 'services', namespace: 'default' }, service);
}

/** The RuntimeClasses every kedge cluster has: one per edge runtime, named as its handler (`kedge-agent`: an edge's built-in agents). */
export const DEFAULT_RUNTIME_CLASSES = ['sim', 'process', 'kedge-agent'] as const;

/**
 * Creates the `sim`, `process` and `kedge-agent` RuntimeClasses that do not exist yet, so pods
 * may name any of them (admission refuses a pod naming a class that does not exist). Idempotent;
 * run at every cloud start: a class that exists is left as it is (a user may have changed it).
 */
export async function ensureRuntimeClasses(client: ApiClient): Promise<void> {
  for (const name of DEFAULT_RUNTIME_CLASSES) {
    const rc: RuntimeClass = { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: name };
    await createIfAbsent(client, { resource: 'runtimeclasses', group: 'node.k8s.io' }, rc);
  }
}

/** The StorageClass every kedge cluster has: the local-path provisioner's, the default. */
export const LOCAL_PATH_CLASS = 'local-path';

/**
 * Creates the default StorageClass `local-path` (rancher.io/local-path, WaitForFirstConsumer,
 * Delete) when it does not exist. Idempotent; run at every cloud start: a class that exists is
 * left as it is (a user may have changed it, or taken its default mark away).
 */
export async function ensureDefaultStorageClass(client: ApiClient): Promise<void> {
  const sc: StorageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: LOCAL_PATH_CLASS, annotations: { [ANN_DEFAULT_CLASS]: 'true' } },
    provisioner: LOCAL_PATH_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  };
  await createIfAbsent(client, { resource: 'storageclasses', group: STORAGE_GROUP }, sc);
}
