import { beforeEach, describe, expect, it } from 'vitest';
import { apiFixture, NODE_TOKEN, pod, type ApiFixture } from '../support/api-fixture.js';

const NS = '/api/v1/namespaces/default';
const PVS = '/api/v1/persistentvolumes';
type Status = { reason?: string; message?: string; code?: number; spec?: Record<string, unknown> };
const forbidden = (what: string, verb: string, resource: string, why: string, scope = ' in the namespace "default"') =>
  `${what} is forbidden: User "system:node:edge-1" cannot ${verb} resource "${resource}" in API group ""${scope}: ${why}`;
const noRelationship = "no relationship found between node 'edge-1' and this object";
const onlyGet = 'can only get individual resources of this type';

/** A pod bound to `node` mounting claim `claimName`. */
const mounting = (name: string, node: string, claimName: string) =>
  pod(name, { spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.27' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } });
/** A claim bound to `volumeName`, and the volume bound back to it (what the PV controller writes). */
const claim = (name: string, volumeName: string) => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName },
});
const volume = (name: string, claimName: string) => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: claimName } },
});

/**
 * kube's Node authorizer graph (pod → claim → volume): a node gets a PersistentVolumeClaim only
 * when a pod bound to it mounts it, and a PersistentVolume only when such a claim is bound to
 * it; it never lists or watches either; another node's claims and volumes are refused.
 */
describe('a node reads only the claims its own pods mount and the volumes those are bound to', () => {
  let f: ApiFixture;
  const create = async (path: string, body: unknown): Promise<void> => expect((await f.json('POST', path, { body })).status).toBe(201);
  const asNode = (path: string, query: Record<string, string> = {}) => f.json<Status>('GET', path, { token: NODE_TOKEN, query });

  beforeEach(async () => {
    f = await apiFixture();
    for (const [c, v] of [['mine', 'pv-mine'], ['theirs', 'pv-theirs'], ['idle', 'pv-idle']] as const) {
      await create(`${NS}/persistentvolumeclaims`, claim(c, v));
      await create(PVS, volume(v, c));
    }
    await create(`${NS}/pods`, mounting('web', 'edge-1', 'mine'));
    await create(`${NS}/pods`, mounting('db', 'edge-2', 'theirs'));
  });

  it('gets the claim its own pod mounts and the volume it is bound to', async () => {
    const claimRes = await asNode(`${NS}/persistentvolumeclaims/mine`);
    expect([claimRes.status, claimRes.body.spec?.volumeName]).toEqual([200, 'pv-mine']);
    const volumeRes = await asNode(`${PVS}/pv-mine`);
    expect([volumeRes.status, volumeRes.body.spec?.hostPath]).toEqual([200, { path: '/srv/pv-mine' }]);
  });

  it.each([
    ["another node's pod's claim", `${NS}/persistentvolumeclaims/theirs`, {}, forbidden('persistentvolumeclaims "theirs"', 'get', 'persistentvolumeclaims', noRelationship)],
    ["another node's pod's volume", `${PVS}/pv-theirs`, {}, forbidden('persistentvolumes "pv-theirs"', 'get', 'persistentvolumes', noRelationship, ' at the cluster scope')],
    ['a claim no pod mounts', `${NS}/persistentvolumeclaims/idle`, {}, forbidden('persistentvolumeclaims "idle"', 'get', 'persistentvolumeclaims', noRelationship)],
    ['the volume of a claim no pod mounts', `${PVS}/pv-idle`, {}, forbidden('persistentvolumes "pv-idle"', 'get', 'persistentvolumes', noRelationship, ' at the cluster scope')],
    ['a volume that does not exist', `${PVS}/pv-none`, {}, forbidden('persistentvolumes "pv-none"', 'get', 'persistentvolumes', noRelationship, ' at the cluster scope')],
    ['a claim of its name in another namespace', '/api/v1/namespaces/kube-system/persistentvolumeclaims/mine', {}, forbidden('persistentvolumeclaims "mine"', 'get', 'persistentvolumeclaims', noRelationship, ' in the namespace "kube-system"')],
    ['a list of claims', `${NS}/persistentvolumeclaims`, {}, forbidden('persistentvolumeclaims', 'list', 'persistentvolumeclaims', onlyGet)],
    ['a list of volumes', PVS, {}, forbidden('persistentvolumes', 'list', 'persistentvolumes', onlyGet, ' at the cluster scope')],
    ['a watch of volumes', PVS, { watch: 'true' }, forbidden('persistentvolumes', 'watch', 'persistentvolumes', onlyGet, ' at the cluster scope')],
    ["its own volume's status", `${PVS}/pv-mine/status`, {}, forbidden('persistentvolumes "pv-mine"', 'get', 'persistentvolumes/status', 'cannot get subresource', ' at the cluster scope')],
  ])('is refused %s with 403 and kube’s wording', async (_label, path, query, message) => {
    const res = await asNode(path, query);
    expect([res.status, res.body.reason, res.body.code, res.body.message]).toEqual([403, 'Forbidden', 403, message]);
  });

  it('may not write them either', async () => {
    const res = await f.json<Status>('PUT', `${PVS}/pv-mine`, { token: NODE_TOKEN, body: volume('pv-mine', 'mine') });
    expect(res.status).toBe(403);
  });

  it('loses the volume with its claim', async () => {
    expect((await f.json('DELETE', `${NS}/persistentvolumeclaims/mine`)).status).toBe(200);
    const res = await asNode(`${PVS}/pv-mine`);
    expect([res.status, res.body.message]).toEqual([403, forbidden('persistentvolumes "pv-mine"', 'get', 'persistentvolumes', noRelationship, ' at the cluster scope')]);
  });

  it('loses the claim and the volume with the pod that mounted the claim', async () => {
    expect((await f.json('DELETE', `${NS}/pods/web`, { query: { gracePeriodSeconds: '0' } })).status).toBe(200);
    expect((await asNode(`${NS}/persistentvolumeclaims/mine`)).status).toBe(403);
    expect((await asNode(`${PVS}/pv-mine`)).status).toBe(403);
  });
});
