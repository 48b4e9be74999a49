import { beforeEach, describe, expect, it } from 'vitest';
import { apiFixture, NODE_TOKEN, pod, type ApiFixture } from '../support/api-fixture.js';

const NS = '/api/v1/namespaces/default';
type Status = { reason?: string; message?: string; code?: number; data?: Record<string, string> };
const forbidden = (what: string, verb: string, resource: string, why: string, scope = ' in the namespace "default"') =>
  `${what} is forbidden: User "system:node:edge-1" cannot ${verb} resource "${resource}" in API group ""${scope}: ${why}`;
const noRelationship = "no relationship found between node 'edge-1' and this object";
const onlyGet = 'can only get individual resources of this type';

/** A pod bound to `node` that reads Secret `secret` by env and mounts ConfigMap `configMap`. */
const referencing = (name: string, node: string, secret: string, configMap: string) =>
  pod(name, {
    spec: {
      nodeName: node,
      containers: [{ name: 'app', image: 'nginx:1.27', env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: secret, key: 'pw' } } }] }],
      volumes: [{ name: 'cfg', configMap: { name: configMap } }],
    },
  });

/**
 * kube's Node authorizer: a node gets a ConfigMap or Secret only when a pod bound to it
 * references it, and never lists or watches them; another node's pod's Secret is refused.
 */
describe('a node reads only the ConfigMaps and Secrets its own pods reference', () => {
  let f: ApiFixture;
  const create = async (path: string, body: unknown): Promise<void> => expect((await f.json('POST', path, { body })).status).toBe(201);
  const asNode = (path: string, query: Record<string, string> = {}) => f.json<Status>('GET', path, { token: NODE_TOKEN, query });

  beforeEach(async () => {
    f = await apiFixture();
    for (const name of ['mine', 'theirs']) await create(`${NS}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { pw: 'cHc=' } });
    for (const name of ['mine-cfg', 'their-cfg']) await create(`${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
    await create(`${NS}/pods`, referencing('web', 'edge-1', 'mine', 'mine-cfg'));
    await create(`${NS}/pods`, referencing('db', 'edge-2', 'theirs', 'their-cfg'));
  });

  it('gets the Secret and the ConfigMap its own pod references', async () => {
    const secret = await asNode(`${NS}/secrets/mine`);
    expect([secret.status, secret.body.data]).toEqual([200, { pw: 'cHc=' }]);
    expect((await asNode(`${NS}/configmaps/mine-cfg`)).status).toBe(200);
  });

  it.each([
    ["another node's pod's Secret", `${NS}/secrets/theirs`, {}, forbidden('secrets "theirs"', 'get', 'secrets', noRelationship)],
    ["another node's pod's ConfigMap", `${NS}/configmaps/their-cfg`, {}, forbidden('configmaps "their-cfg"', 'get', 'configmaps', noRelationship)],
    ['a Secret of its name in another namespace', '/api/v1/namespaces/kube-system/secrets/mine', {}, forbidden('secrets "mine"', 'get', 'secrets', noRelationship, ' in the namespace "kube-system"')],
    ['a list of Secrets', `${NS}/secrets`, {}, forbidden('secrets', 'list', 'secrets', onlyGet)],
    ['a list of ConfigMaps in every namespace', '/api/v1/configmaps', {}, forbidden('configmaps', 'list', 'configmaps', onlyGet, ' at the cluster scope')],
    ['a watch of Secrets', `${NS}/secrets`, { watch: 'true' }, forbidden('secrets', 'watch', 'secrets', onlyGet)],
    ['a watch of its own Secret by name', '/api/v1/watch/namespaces/default/secrets/mine', {}, forbidden('secrets "mine"', 'watch', 'secrets', onlyGet)],
  ])('is refused %s with 403 and kube’s wording', async (_label, path, query, message) => {
    const res = await asNode(path, query);
    expect([res.status, res.body.reason, res.body.code, res.body.message]).toEqual([403, 'Forbidden', 403, message]);
  });

  it('may not write them either', async () => {
    const res = await f.json<Status>('PUT', `${NS}/secrets/mine`, { token: NODE_TOKEN, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'mine' }, data: {} } });
    expect(res.status).toBe(403);
  });

  it('loses the Secret with the pod that referenced it', async () => {
    expect((await f.json('DELETE', `${NS}/pods/web`, { query: { gracePeriodSeconds: '0' } })).status).toBe(200);
    const res = await asNode(`${NS}/secrets/mine`);
    expect([res.status, res.body.message]).toEqual([403, forbidden('secrets "mine"', 'get', 'secrets', noRelationship)]);
  });
});
