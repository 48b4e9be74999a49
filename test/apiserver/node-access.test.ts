import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { Pod } from '../../shared/types.js';
import { node, pod } from '../support/api-fixture.js';

const ADMIN = 'admin-token';
const EDGE1 = 'edge-1-token';
const pods = '/api/v1/namespaces/default/pods';

/** An apiserver with an admin and node edge-1's token; two nodes, a pod bound to each. */
async function cluster() {
  const api = createApiServer({
    store: new MemoryStore(),
    clock: new FakeClock(),
    logger: silentLogger,
    resources: clusterResources,
    tokens: [
      { token: ADMIN, user: 'admin', role: 'admin' },
      { token: EDGE1, user: 'system:node:edge-1', role: 'node', groups: ['system:nodes'] },
    ],
  });
  await ensureSystemNamespaces(api.loopback(ADMIN));
  const send = async (token: string, method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const req: ApiRequest = { method, path, query: new URLSearchParams(), headers: { authorization: `Bearer ${token}`, accept: 'application/json' } };
    if (body !== undefined) {
      req.body = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      req.headers['content-type'] = contentType;
    }
    const res = await api.handle(req);
    return { status: res.status, body: (res.type === 'json' ? res.body : undefined) as { message?: string; status?: { phase?: string } } };
  };
  for (const name of ['edge-1', 'edge-2']) {
    expect((await send(ADMIN, 'POST', '/api/v1/nodes', node(name))).status).toBe(201);
    expect((await send(ADMIN, 'POST', pods, pod(`on-${name}`, { spec: { nodeName: name, containers: [{ name: 'app', image: 'nginx' }] } }))).status).toBe(201);
  }
  return { api, send };
}

const running = { status: { phase: 'Running' } };
const merge = 'application/merge-patch+json';

describe('a node token through the apiserver (NodeRestriction)', () => {
  it("writes the status of its own pods only, with the pod's binding looked up in storage", async () => {
    const { send } = await cluster();
    const own = await send(EDGE1, 'PATCH', `${pods}/on-edge-1/status`, running, merge);
    expect([own.status, own.body.status?.phase]).toEqual([200, 'Running']);
    const current = (await send(EDGE1, 'GET', `${pods}/on-edge-1`)).body;
    expect((await send(EDGE1, 'PUT', `${pods}/on-edge-1/status`, current)).status).toBe(200);

    const other = await send(EDGE1, 'PATCH', `${pods}/on-edge-2/status`, running, merge);
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('pods "on-edge-2" is forbidden: User "system:node:edge-1" cannot patch resource "pods/status" in API group "" in the namespace "default"');
    expect((await send(ADMIN, 'GET', `${pods}/on-edge-2`)).body.status?.phase).not.toBe('Running');
    expect((await send(EDGE1, 'PATCH', `${pods}/missing/status`, running, merge)).status).toBe(403);
  });

  it('reads nodes and pods, writes only its own Node, and deletes only its own pods', async () => {
    const { send } = await cluster();
    expect((await send(EDGE1, 'GET', '/api/v1/nodes/edge-2')).status).toBe(200);
    expect((await send(EDGE1, 'GET', '/api/v1/pods')).status).toBe(200);
    const label = { metadata: { labels: { seen: 'yes' } } };
    expect((await send(EDGE1, 'PATCH', '/api/v1/nodes/edge-1', label, merge)).status).toBe(200);
    expect((await send(EDGE1, 'PATCH', '/api/v1/nodes/edge-1/status', { status: { phase: 'Running' } }, merge)).status).toBe(200);
    expect((await send(EDGE1, 'PATCH', '/api/v1/nodes/edge-2', label, merge)).status).toBe(403);
    expect((await send(EDGE1, 'PATCH', '/api/v1/nodes/edge-2/status', { status: {} }, merge)).status).toBe(403);
    expect((await send(EDGE1, 'DELETE', '/api/v1/nodes/edge-1')).status).toBe(403);
    expect((await send(EDGE1, 'DELETE', `${pods}/on-edge-2`)).status).toBe(403);
    // A kubelet's final delete of a pod it stopped: only of a pod bound to it.
    expect((await send(EDGE1, 'DELETE', `${pods}/on-edge-1`)).status).toBe(200);
    expect((await send(EDGE1, 'POST', pods, pod('sneaky'))).status).toBe(403);
  });

  it('writes Events only about itself and its pods, counts only its own, and never turns one into another', async () => {
    const { send } = await cluster();
    const events = '/api/v1/namespaces/default/events';
    const uidOf = async (name: string) => ((await send(ADMIN, 'GET', `${pods}/${name}`)).body as unknown as Pod).metadata.uid;
    const about = (name: string, uid: string | undefined) => ({ kind: 'Pod', namespace: 'default', name, uid });
    const event = (name: string, involvedObject: object, host = 'edge-1') => ({ metadata: { name }, involvedObject, reason: 'Started', type: 'Normal', message: 'Started container app', count: 1, source: { component: 'kubelet', host } });
    const own = about('on-edge-1', await uidOf('on-edge-1'));
    expect((await send(EDGE1, 'POST', events, event('on-edge-1.1', own))).status).toBe(201);
    expect((await send(EDGE1, 'POST', events, event('edge-1.1', { kind: 'Node', name: 'edge-1' }))).status).toBe(201);
    const foreign = await send(EDGE1, 'POST', events, event('on-edge-2.1', about('on-edge-2', await uidOf('on-edge-2'))));
    expect([foreign.status, foreign.body.message]).toEqual([403, `events is forbidden: User "system:node:edge-1" cannot create resource "events" in API group "" in the namespace "default": no relationship found between node 'edge-1' and this object`]);
    expect((await send(EDGE1, 'POST', events, event('on-edge-1.2', about('on-edge-1', 'another-uid')))).status).toBe(403);
    expect((await send(EDGE1, 'POST', events, event('edge-2.1', { kind: 'Node', name: 'edge-2' }))).status).toBe(403);
    // It counts its own; it may not make one about another object, nor read any.
    expect((await send(EDGE1, 'PATCH', `${events}/on-edge-1.1`, { count: 2 }, merge)).status).toBe(200);
    const turned = await send(EDGE1, 'PATCH', `${events}/on-edge-1.1`, { involvedObject: { name: 'on-edge-2' } }, merge);
    expect([turned.status, turned.body.message]).toEqual([403, 'events "on-edge-1.1" is forbidden: node "edge-1" is not allowed to modify involvedObject']);
    expect((await send(EDGE1, 'GET', `${events}/on-edge-1.1`)).status).toBe(403);
    expect((await send(EDGE1, 'DELETE', `${events}/on-edge-1.1`)).status).toBe(403);
    // An Event someone else reported about its pod is not its to count.
    expect((await send(ADMIN, 'POST', events, event('on-edge-1.3', own, 'edge-2'))).status).toBe(201);
    expect((await send(EDGE1, 'PATCH', `${events}/on-edge-1.3`, { count: 5 }, merge)).status).toBe(403);
  });

  it('creates, reads and renews its own Lease in kube-node-lease, and no other', async () => {
    const { send } = await cluster();
    const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40 } });
    expect((await send(EDGE1, 'POST', leases, lease('edge-1'))).status).toBe(201);
    const other = await send(EDGE1, 'POST', leases, lease('edge-2'));
    expect([other.status, other.body.message]).toEqual([403, 'leases.coordination.k8s.io is forbidden: User "system:node:edge-1" cannot create resource "leases" in API group "coordination.k8s.io" in the namespace "kube-node-lease"']);
    // A body that does not decode is a bad request, not a refusal.
    expect((await send(EDGE1, 'POST', leases, '{"metadata": ')).status).toBe(400);
    const own = (await send(EDGE1, 'GET', `${leases}/edge-1`)).body as unknown as { spec: Record<string, unknown> };
    expect((await send(EDGE1, 'PUT', `${leases}/edge-1`, { ...own, spec: { ...own.spec, leaseDurationSeconds: 41 } })).status).toBe(200);
    expect((await send(ADMIN, 'POST', leases, lease('edge-2'))).status).toBe(201);
    expect((await send(EDGE1, 'GET', `${leases}/edge-2`)).status).toBe(403);
    expect((await send(EDGE1, 'DELETE', `${leases}/edge-1`)).status).toBe(403);
  });
});
