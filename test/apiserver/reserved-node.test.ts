import { describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { joinHandler, JOIN_PATH } from '../../cloud/join/join-service.js';
import { bootstrapTokenSecret, JOIN_NAMESPACE } from '../../cloud/join/secrets.js';
import { startControlPlaneNode } from '../../cloud/control-plane-node/node-agent.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node } from '../../shared/types.js';
import { node } from '../support/api-fixture.js';

const CLOUD_NODE = 'kedge-control-plane';
const ADMIN = 'admin-token';
const AS_CLOUD_NODE = 'cloud-node-token';
const EDGE1 = 'edge-1-token';
const nodeToken = (token: string, name: string) => ({ token, user: `system:node:${name}`, role: 'node' as const, groups: ['system:nodes'] });

/** An apiserver whose cloud is node kedge-control-plane, with node tokens for it (as a join would make) and for edge-1. */
async function cloudApi() {
  const clock = new FakeClock();
  const api = createApiServer({
    store: new MemoryStore(), clock, logger: silentLogger, resources: clusterResources, reservedNode: CLOUD_NODE,
    tokens: [{ token: ADMIN, user: 'admin', role: 'admin' }, nodeToken(AS_CLOUD_NODE, CLOUD_NODE), nodeToken(EDGE1, 'edge-1')],
  });
  const admin = api.loopback(ADMIN);
  await ensureSystemNamespaces(admin);
  const send = async (token: string, method: string, path: string) => {
    const res = await api.handle({ method, path, query: new URLSearchParams(), headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    return { status: res.status, message: (res.type === 'json' ? (res.body as { message?: string }).message : undefined) };
  };
  return { clock, admin, send };
}

describe("the cloud's own node name is reserved", () => {
  it('refuses every request of a node credential acting as the cloud node, with the reason', async () => {
    const { admin, send } = await cloudApi();
    for (const name of [CLOUD_NODE, 'edge-1']) await admin.create({ resource: 'nodes' }, node(name));
    expect((await send(EDGE1, 'GET', '/api/v1/nodes/edge-1')).status).toBe(200);
    for (const path of ['/api/v1/nodes/kedge-control-plane', '/api/v1/namespaces/kube-system/pods', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/kedge-control-plane']) {
      expect(await send(AS_CLOUD_NODE, 'GET', path)).toEqual({
        status: 403, message: `User "system:node:${CLOUD_NODE}" is forbidden: node ${CLOUD_NODE} is the cloud's own control-plane node; no node credential may act as it`,
      });
    }
  });

  it('refuses to join a node under that name, even with a token for any node', async () => {
    const { clock, admin } = await cloudApi();
    await admin.create({ resource: 'secrets', namespace: JOIN_NAMESPACE }, bootstrapTokenSecret({ id: 'abcdef', secret: '0123456789abcdef', expires: clock.now() + 60_000 }));
    const handler = joinHandler({ api: admin, clock, logger: silentLogger, counters: new Counters(), caPem: 'ca', brokerUrlFor: () => 'mqtt://x', reservedNode: CLOUD_NODE });
    const joinAs = (name: string) => {
      const req: ApiRequest = { method: 'POST', path: JOIN_PATH, query: new URLSearchParams(), headers: { authorization: 'Bearer abcdef.0123456789abcdef' }, body: Buffer.from(JSON.stringify({ node: name })) };
      return handler(req, JOIN_PATH)!;
    };
    await expect(joinAs(CLOUD_NODE)).rejects.toMatchObject({ code: 'Forbidden', message: `node name ${CLOUD_NODE} is reserved: it is the cloud's own control-plane node` });
    expect((await joinAs('edge-1')).status).toBe(201);
  });

  it("will not take over an edge's Node of that name (no control-plane role label)", async () => {
    const { clock, admin } = await cloudApi();
    await admin.create({ resource: 'nodes' }, node('edge-1'));
    const facts = { name: 'edge-1', address: '127.0.0.1', bootId: 'b', kernelVersion: 'k', startedAt: clock.now() };
    // Registering is the first thing it does: nothing else is reached.
    const started = startControlPlaneNode({ api: admin, informers: undefined as never, clock, timing: defaultTiming, logger: silentLogger, components: undefined as never, facts, embeddedBroker: true });
    await expect(started).rejects.toMatchObject({
      code: 'Conflict', message: "node edge-1 exists without the node-role.kubernetes.io/control-plane label (an edge's Node?): the cloud will not take it over; start it with another --node-name",
    });
    expect((await admin.get<Node>({ resource: 'nodes', name: 'edge-1' })).metadata.labels).toEqual({ 'node-role.kubernetes.io/edge': '' });
  });
});
