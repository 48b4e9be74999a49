import { beforeEach, describe, expect, it } from 'vitest';
import { bootstrapTokenSecret, nodeCredentialSecret } from '../../cloud/join/secrets.js';
import { apiFixture, NODE_TOKEN, VIEWER_TOKEN, type ApiFixture } from '../support/api-fixture.js';

const SECRETS = '/api/v1/namespaces/kube-system/secrets';
const TOKEN_SECRET = `${SECRETS}/bootstrap-token-abcdef`;
const CREDENTIAL_SECRET = `${SECRETS}/node-credential-edge-1`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/**
 * A viewer reads everything but Secrets, as kube's `view` role: join tokens and node
 * credential hashes live in kube-system Secrets, and a viewer who read a join token could join
 * as an existing node and cut it off. A node reads only the Secrets its own pods reference
 * (node-authz-references.test.ts), never these.
 */
describe('who may read Secrets', () => {
  let f: ApiFixture;
  beforeEach(async () => {
    f = await apiFixture();
    const create = (body: unknown) => f.json('POST', SECRETS, { body });
    expect((await create(bootstrapTokenSecret({ id: 'abcdef', secret: '0123456789abcdef' }))).status).toBe(201);
    expect((await create(nodeCredentialSecret({ node: 'edge-1', passwordHash: '$7$hash', tokenId: 'abcdef' }))).status).toBe(201);
  });

  const forbidden = (what: string, verb: string, scope: string, user = 'viewer') =>
    `${what} is forbidden: User "${user}" cannot ${verb} resource "secrets" in API group ""${scope}`;
  const inKubeSystem = ' in the namespace "kube-system"';
  const clusterWide = ' at the cluster scope';

  it.each([
    ['a list in one namespace', SECRETS, {}, forbidden('secrets', 'list', inKubeSystem)],
    ['a list in every namespace (kubectl get secrets -A)', '/api/v1/secrets', {}, forbidden('secrets', 'list', clusterWide)],
    ['a join token by name', TOKEN_SECRET, {}, forbidden('secrets "bootstrap-token-abcdef"', 'get', inKubeSystem)],
    ['a node credential by name', CREDENTIAL_SECRET, {}, forbidden('secrets "node-credential-edge-1"', 'get', inKubeSystem)],
    ['a watch', SECRETS, { watch: 'true' }, forbidden('secrets', 'watch', inKubeSystem)],
    ['a watch in every namespace', '/api/v1/secrets', { watch: '1' }, forbidden('secrets', 'watch', clusterWide)],
    ['a watch by the legacy prefix', '/api/v1/watch/namespaces/kube-system/secrets', {}, forbidden('secrets', 'watch', inKubeSystem)],
    ['a watch of one by name', '/api/v1/watch/namespaces/kube-system/secrets/bootstrap-token-abcdef', {}, forbidden('secrets "bootstrap-token-abcdef"', 'watch', inKubeSystem)],
  ])('a viewer is refused %s with kube Forbidden', async (_label, path, query, message) => {
    for (const accept of ['application/json', TABLE]) {
      const res = await f.json<{ reason: string; message: string; code: number }>('GET', path, { token: VIEWER_TOKEN, query, accept });
      expect([res.status, res.body.reason, res.body.message]).toEqual([403, 'Forbidden', message]);
    }
  });

  it('a node is refused every Secret read too', async () => {
    for (const [path, query] of [[SECRETS, {}], ['/api/v1/secrets', {}], [TOKEN_SECRET, {}], [SECRETS, { watch: 'true' }]] as const) {
      const res = await f.json<{ message: string }>('GET', path, { token: NODE_TOKEN, query });
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.body.message).toContain('User "system:node:edge-1" cannot');
    }
  });

  it('an admin reads join tokens and node credentials; a viewer still reads everything else', async () => {
    const list = await f.json<{ items: { metadata: { name: string } }[] }>('GET', SECRETS);
    expect(list.body.items.map((s) => s.metadata.name).sort()).toEqual(['bootstrap-token-abcdef', 'node-credential-edge-1']);
    for (const path of ['/api/v1/configmaps', '/api/v1/pods', '/api/v1/nodes', '/api/v1/namespaces/kube-system/events', '/apis/apps/v1/deployments']) {
      expect([path, (await f.json('GET', path, { token: VIEWER_TOKEN })).status]).toEqual([path, 200]);
    }
  });

  it('a viewer may not take the whole store as a backup (Secrets included)', async () => {
    const res = await f.json<{ message: string }>('GET', '/kedge/v1/backup', { token: VIEWER_TOKEN });
    expect([res.status, res.body.message]).toEqual([403, 'forbidden: User "viewer" cannot use path "/kedge/v1/backup": admins only']);
  });
});
