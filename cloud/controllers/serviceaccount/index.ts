import type { KubeObject } from '../../../shared/types.js';
import type { Controller } from '../controller.js';
import { namespaceObjectController } from './controller.js';

export { planNamespaceObject, type NamespaceObjectAction } from './plan.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION = 'kubernetes.io/description';
const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

/** kube's serviceaccounts controller: a `default` ServiceAccount in every namespace, made again when deleted. */
export const serviceAccountController: Controller = namespaceObjectController({
  controller: 'serviceaccount',
  resource: 'serviceaccounts',
  name: DEFAULT_SERVICE_ACCOUNT,
  desired: (namespace) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } }),
  current: () => true,
});

/**
 * kube's root-ca-cert-publisher: a `kube-root-ca.crt` ConfigMap in every namespace whose
 * `ca.crt` is the cluster's CA, put back when deleted or changed. `caPem` is read at each
 * pass (the cloud knows its CA only once its TLS is loaded); none: nothing is published.
 */
export function rootCaCertPublisher(caPem: () => string | undefined): Controller {
  return namespaceObjectController({
    controller: 'root-ca-cert-publisher',
    resource: 'configmaps',
    name: ROOT_CA_CONFIGMAP,
    desired: (namespace) => {
      const ca = caPem();
      return ca === undefined ? undefined : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION]: ROOT_CA_DESCRIPTION } }, data: { 'ca.crt': ca } } as KubeObject;
    },
    current: (existing, desired) => JSON.stringify((existing as { data?: unknown }).data) === JSON.stringify((desired as { data?: unknown }).data) && existing.metadata.annotations?.[DESCRIPTION] === ROOT_CA_DESCRIPTION,
  });
}
