import type { Secret } from '../../shared/config-types.js';

/**
 * The two kinds of Secret joining is built on, both in kube-system:
 * - `bootstrap-token-<id>` (type bootstrap.kubernetes.io/token, kubeadm's format): a join
 *   token's id and secret, its expiry, and with the label kedge.io/node the one node it admits;
 * - `node-credential-<node>` (type kedge.io/node-credential): the broker password a node got
 *   when it joined, as a hash (password-hash.ts), labelled with its node and its join token.
 * Deleting either revokes it; `kubectl -n kube-system get secrets` lists them.
 */
export const JOIN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.kubernetes.io/token';
export const NODE_CREDENTIAL_TYPE = 'kedge.io/node-credential';
export const NODE_LABEL = 'kedge.io/node';
export const TOKEN_LABEL = 'kedge.io/bootstrap-token';

export const bootstrapTokenName = (id: string): string => `bootstrap-token-${id}`;
export const nodeCredentialName = (node: string): string => `node-credential-${node}`;

export interface BootstrapTokenSpec {
  id: string;
  secret: string;
  /** Milliseconds since the epoch; none: never expires. */
  expires?: number;
  /** The only node this token admits; none: any name. */
  node?: string;
  description?: string;
}

export interface NodeCredential {
  node: string;
  /** `$7$…` (password-hash.ts). */
  passwordHash: string;
  /** The id of the join token it was obtained with. */
  tokenId?: string;
}

export function bootstrapTokenSecret(t: BootstrapTokenSpec): Secret {
  const data: Record<string, string> = { 'token-id': t.id, 'token-secret': t.secret, 'usage-bootstrap-authentication': 'true' };
  if (t.expires !== undefined) data.expiration = new Date(t.expires).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (t.description) data.description = t.description;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: bootstrapTokenName(t.id), namespace: JOIN_NAMESPACE, ...(t.node ? { labels: { [NODE_LABEL]: t.node } } : {}) },
    type: BOOTSTRAP_TOKEN_TYPE,
    data: encode(data),
  };
}

/** The token a bootstrap-token Secret holds; undefined when it is not one. */
export function bootstrapTokenOf(secret: Secret): BootstrapTokenSpec | undefined {
  if (secret.type !== BOOTSTRAP_TOKEN_TYPE) return undefined;
  const data = decode(secret.data);
  if (!data['token-id'] || !data['token-secret']) return undefined;
  const expires = data.expiration ? Date.parse(data.expiration) : undefined;
  const node = secret.metadata.labels?.[NODE_LABEL];
  return {
    id: data['token-id'],
    secret: data['token-secret'],
    ...(expires !== undefined ? { expires: Number.isNaN(expires) ? 0 : expires } : {}),
    ...(node ? { node } : {}),
    ...(data.description ? { description: data.description } : {}),
  };
}

export function nodeCredentialSecret(c: NodeCredential): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: nodeCredentialName(c.node),
      namespace: JOIN_NAMESPACE,
      labels: { [NODE_LABEL]: c.node, ...(c.tokenId ? { [TOKEN_LABEL]: c.tokenId } : {}) },
    },
    type: NODE_CREDENTIAL_TYPE,
    data: encode({ node: c.node, 'password-hash': c.passwordHash }),
  };
}

/** The credential a node-credential Secret holds; undefined when it is not one. */
export function nodeCredentialOf(secret: Secret): NodeCredential | undefined {
  if (secret.type !== NODE_CREDENTIAL_TYPE) return undefined;
  const data = decode(secret.data);
  if (!data.node || !data['password-hash']) return undefined;
  const tokenId = secret.metadata.labels?.[TOKEN_LABEL];
  return { node: data.node, passwordHash: data['password-hash'], ...(tokenId ? { tokenId } : {}) };
}

function encode(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
}

function decode(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}
