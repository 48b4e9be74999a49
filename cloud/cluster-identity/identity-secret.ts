import type { Secret } from '../../shared/config-types.js';
import type { ClusterIdentity } from '../apiserver/index.js';

/**
 * The cluster's identity in the store, for every cloud on it: one Secret in kube-system, so the
 * first cloud writes it whole or not at all (as kubeadm keeps the control-plane certificates in
 * one Secret, kube-system/kubeadm-certs). Admins only: viewers never read Secrets (authz.ts),
 * nodes only those their pods use.
 */
export const IDENTITY_NAMESPACE = 'kube-system';
export const IDENTITY_SECRET = 'kedge-cluster-identity';
export const IDENTITY_TYPE = 'kedge.io/cluster-identity';

const KEYS = { admin: 'admin-token', cloud: 'cloud-token', hub: 'hub-password', edge: 'edge-token', caCert: 'ca.crt', caKey: 'ca.key' } as const;

export function identitySecret(identity: ClusterIdentity): Secret {
  const { credentials: c, ca } = identity;
  const data = { [KEYS.admin]: c.admin, [KEYS.cloud]: c.cloud, [KEYS.hub]: c.hub, [KEYS.edge]: c.edge, [KEYS.caCert]: ca.certPem, [KEYS.caKey]: ca.keyPem };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: IDENTITY_SECRET, namespace: IDENTITY_NAMESPACE },
    type: IDENTITY_TYPE,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])),
  };
}

/** The identity a Secret holds; throws, saying what is missing, for one that does not hold it whole. */
export function identityOf(secret: Secret): ClusterIdentity {
  const read = (key: string): string => {
    const value = secret.data?.[key];
    if (secret.type !== IDENTITY_TYPE || !value) throw new Error(`${IDENTITY_NAMESPACE}/${IDENTITY_SECRET} is not a ${IDENTITY_TYPE} Secret with ${key}`);
    return Buffer.from(value, 'base64').toString('utf8');
  };
  return {
    credentials: { admin: read(KEYS.admin), cloud: read(KEYS.cloud), hub: read(KEYS.hub), edge: read(KEYS.edge) },
    ca: { certPem: read(KEYS.caCert), keyPem: read(KEYS.caKey) },
  };
}
