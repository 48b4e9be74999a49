import { describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Service } from '../../shared/service-types.js';
import type { Node, Pod } from '../../shared/types.js';
import type { ScenarioCluster } from '../../sim/scenario/cluster.js';
import { check } from '../../sim/scenario/observe.js';
import { FakeApiClient } from '../support/fake-api-client.js';

const ADMIN = 'observe-admin';
const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'welcome' }, spec: { containers: [{ name: 'c', image: 'i' }] } };

describe('expect: rejected against a real apiserver', () => {
  it('tries the create as a dry run: an object the cloud accepts fails the expectation and is not stored', async () => {
    const store = new MemoryStore();
    const api = createApiServer({ store, clock: new FakeClock(), logger: silentLogger, tokens: [{ token: ADMIN, user: 'admin', role: 'admin' }] });
    const client = api.loopback(ADMIN);
    await ensureSystemNamespaces(client);
    const cluster = { api: client, nodes: [] } as unknown as ScenarioCluster;
    try {
      expect(await check(cluster, { kind: 'rejected', object: pod })).toEqual({ ok: false, seen: 'accepted (a dry run: nothing was stored)' });
      expect((await client.list<Pod>({ resource: 'pods', namespace: 'default' })).items).toEqual([]);
      const invalid = { ...pod, spec: { containers: [] } };
      expect(await check(cluster, { kind: 'rejected', object: invalid, status: 422 })).toMatchObject({ ok: true, seen: expect.stringMatching(/^HTTP 422: /) });
    } finally {
      await store.close();
    }
  });
});

describe('expect: file against a real apiserver', () => {
  it("reads the file on the node of the one matching pod, as its container sees it", async () => {
    const store = new MemoryStore();
    const api = createApiServer({ store, clock: new FakeClock(), logger: silentLogger, tokens: [{ token: ADMIN, user: 'admin', role: 'admin' }] });
    const client = api.loopback(ADMIN);
    await ensureSystemNamespaces(client);
    const uids = new Map<string, string>();
    for (const node of ['edge-1', 'edge-2']) {
      const created = await client.create<Pod>({ resource: 'pods', namespace: 'default' }, { ...pod, metadata: { name: `sensor-${node}`, labels: { app: 'sensor' } }, spec: { ...pod.spec, nodeName: node } });
      uids.set(node, created.metadata.uid ?? '');
    }
    const files = new Map([[`edge-1/${uids.get('edge-1')}/c/etc/cfg/unit`, 'unit=kelvin\n']]);
    const edgeFile = async (node: string, uid: string, container: string, path: string): Promise<string> => {
      const text = files.get(`${node}/${uid}/${container}${path}`);
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    };
    const cluster = { api: client, nodes: ['edge-1', 'edge-2'], edgeFile } as unknown as ScenarioCluster;
    const file = { kind: 'file', node: 'edge-1', selector: 'app=sensor', namespace: 'default', path: '/etc/cfg/unit', contains: 'kelvin' } as const;
    try {
      expect(await check(cluster, file)).toEqual({ ok: true, seen: '"unit=kelvin\\n"' });
      expect(await check(cluster, { ...file, contains: 'celsius' })).toMatchObject({ ok: false });
      expect(await check(cluster, { ...file, node: 'edge-2' })).toEqual({ ok: false, seen: expect.stringMatching(/^cannot read \/etc\/cfg\/unit of sensor-edge-2\/c: ENOENT/) });
      expect(await check(cluster, { ...file, selector: 'app=other' })).toEqual({ ok: false, seen: '0 pods match app=other on edge-1, not one' });
    } finally {
      await store.close();
    }
  });
});

describe('expect: service against the objects of the API', () => {
  it("asks the node's InternalIP at the Service's nodePort (the port named, or the first with one), and says what is missing", async () => {
    const api = new FakeApiClient();
    await api.create<Node>({ resource: 'nodes' }, { metadata: { name: 'edge-1' }, status: { addresses: [{ type: 'Hostname', address: 'edge-1' }, { type: 'InternalIP', address: '127.0.1.1' }] } });
    await api.create<Node>({ resource: 'nodes' }, { metadata: { name: 'edge-2' } });
    const ports = [{ name: 'metrics', port: 9090 }, { name: 'http', port: 80, nodePort: 30180 }, { name: 'admin', port: 81, nodePort: 30181 }];
    await api.create<Service>({ resource: 'services', namespace: 'default' }, { metadata: { name: 'echo' }, spec: { type: 'NodePort', ports } });
    await api.create<Service>({ resource: 'services', namespace: 'default' }, { metadata: { name: 'inside' }, spec: { ports: [{ port: 80 }] } });
    const asked: string[] = [];
    const httpGet = async (url: string) => (asked.push(url), { status: 200, body: 'echo-a\n' });
    const cluster = { api, nodes: ['edge-1', 'edge-2'], httpGet } as unknown as ScenarioCluster;
    const e = { kind: 'service', service: 'echo', namespace: 'default', node: 'edge-1', path: '/who', requests: 2, answers: true } as const;
    expect(await check(cluster, e)).toEqual({ ok: true, seen: 'http://127.0.1.1:30180/who: 2 of 2 answered ("echo-a" ×2)' });
    await check(cluster, { ...e, port: 'admin', requests: 1 });
    await check(cluster, { ...e, port: 81, requests: 1 });
    expect(asked).toEqual(['http://127.0.1.1:30180/who', 'http://127.0.1.1:30180/who', 'http://127.0.1.1:30181/who', 'http://127.0.1.1:30181/who']);
    expect(await check(cluster, { ...e, port: 'grpc' })).toEqual({ ok: false, seen: 'no answer: service echo has no port grpc (metrics, http, admin)' });
    expect(await check(cluster, { ...e, service: 'inside' })).toEqual({ ok: false, seen: 'no answer: service inside has no nodePort (type ClusterIP)' });
    expect(await check(cluster, { ...e, node: 'edge-2' })).toEqual({ ok: false, seen: 'no answer: node edge-2 has no InternalIP' });
  });
});
