import { beforeEach, describe, expect, it } from 'vitest';
import type { Node } from '../../shared/types.js';
import { apiFixture, NODE_TOKEN, type ApiFixture } from '../support/api-fixture.js';

const OWN = '/api/v1/nodes/edge-1';
const taint = { key: 'dedicated', value: 'db', effect: 'NoSchedule' as const };
const ownNode = (): Node =>
  ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'edge-1', labels: { 'kubernetes.io/hostname': 'edge-1', 'node-role.kubernetes.io/edge': '', 'node-restriction.kubernetes.io/pool': 'a' } },
    spec: { taints: [taint] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  }) as Node;

type Body = { message?: string; reason?: string; metadata?: Node['metadata']; spec?: Node['spec'] };
const refused = (why: string): [number, string] => [403, `nodes "edge-1" is forbidden: ${why}`];
const taints = refused('node "edge-1" is not allowed to modify taints');
const unschedulable = refused('node "edge-1" is not allowed to modify unschedulable');
const labels = (...keys: string[]): [number, string] => refused(`is not allowed to modify labels: ${keys.join(', ')}`);

/** One change, written by each verb a client has: PUT, the four patch types, and apply. */
interface Change {
  label: string;
  apply(node: Node): void;
  jsonPatch: unknown[];
  merge: unknown;
  expected: [number, string];
  /** A removal: an apply that leaves a field out keeps it (the node's manager does not own it). */
  removes?: true;
}

const changes: Change[] = [
  { label: 'adds a taint', apply: (n) => n.spec!.taints!.push({ key: 'k', value: 'v', effect: 'NoSchedule' }), jsonPatch: [{ op: 'add', path: '/spec/taints/-', value: { key: 'k', value: 'v', effect: 'NoSchedule' } }], merge: { spec: { taints: [taint, { key: 'k', value: 'v', effect: 'NoSchedule' }] } }, expected: taints },
  { label: 'removes its taints', apply: (n) => delete n.spec!.taints, jsonPatch: [{ op: 'remove', path: '/spec/taints' }], merge: { spec: { taints: null } }, expected: taints, removes: true },
  { label: 'cordons itself', apply: (n) => (n.spec!.unschedulable = true), jsonPatch: [{ op: 'add', path: '/spec/unschedulable', value: true }], merge: { spec: { unschedulable: true } }, expected: unschedulable },
  { label: 'claims the control-plane role', apply: (n) => (n.metadata.labels!['node-role.kubernetes.io/control-plane'] = ''), jsonPatch: [{ op: 'add', path: '/metadata/labels/node-role.kubernetes.io~1control-plane', value: '' }], merge: { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } }, expected: labels('node-role.kubernetes.io/control-plane') },
  { label: 'drops its edge role', apply: (n) => delete n.metadata.labels!['node-role.kubernetes.io/edge'], jsonPatch: [{ op: 'remove', path: '/metadata/labels/node-role.kubernetes.io~1edge' }], merge: { metadata: { labels: { 'node-role.kubernetes.io/edge': null } } }, expected: labels('node-role.kubernetes.io/edge'), removes: true },
  { label: 'changes a node-restriction label', apply: (n) => (n.metadata.labels!['node-restriction.kubernetes.io/pool'] = 'b'), jsonPatch: [{ op: 'replace', path: '/metadata/labels/node-restriction.kubernetes.io~1pool', value: 'b' }], merge: { metadata: { labels: { 'node-restriction.kubernetes.io/pool': 'b' } } }, expected: labels('node-restriction.kubernetes.io/pool') },
  { label: "sets a kubernetes.io label that is not a kubelet's", apply: (n) => (n.metadata.labels!['kubernetes.io/role'] = 'master'), jsonPatch: [{ op: 'add', path: '/metadata/labels/kubernetes.io~1role', value: 'master' }], merge: { metadata: { labels: { 'kubernetes.io/role': 'master' } } }, expected: labels('kubernetes.io/role') },
  { label: 'sets an owner', apply: (n) => (n.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'edge-2', uid: 'u' }]), jsonPatch: [{ op: 'add', path: '/metadata/ownerReferences', value: [{ apiVersion: 'v1', kind: 'Node', name: 'edge-2', uid: 'u' }] }], merge: { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'edge-2', uid: 'u' }] } }, expected: refused('node "edge-1" is not allowed to modify ownerReferences') },
  { label: 'gives itself a pod range', apply: (n) => (n.spec!.podCIDR = '127.64.9.0/24'), jsonPatch: [{ op: 'add', path: '/spec/podCIDR', value: '127.64.9.0/24' }], merge: { spec: { podCIDRs: ['127.64.9.0/24'] } }, expected: refused('node "edge-1" is not allowed to modify podCIDR') },
  { label: 'sets its own labels and kubelet labels (allowed)', apply: (n) => Object.assign(n.metadata.labels!, { 'example.com/rack': 'r1', 'topology.kubernetes.io/zone': 'z1', 'node.kubernetes.io/instance-type': 'small' }), jsonPatch: [{ op: 'add', path: '/metadata/labels/example.com~1rack', value: 'r1' }, { op: 'add', path: '/metadata/labels/topology.kubernetes.io~1zone', value: 'z1' }, { op: 'add', path: '/metadata/labels/node.kubernetes.io~1instance-type', value: 'small' }], merge: { metadata: { labels: { 'example.com/rack': 'r1', 'topology.kubernetes.io/zone': 'z1', 'node.kubernetes.io/instance-type': 'small' } } }, expected: [200, ''] },
];

describe('NodeRestriction: what a node may change on its own Node', () => {
  let f: ApiFixture;
  beforeEach(async () => {
    f = await apiFixture();
    expect((await f.json('POST', '/api/v1/nodes', { body: ownNode() })).status).toBe(201);
  });

  const outcome = async (method: string, path: string, body: unknown, contentType?: string, query?: Record<string, string>): Promise<[number, string]> => {
    const res = await f.json<Body>(method, path, { token: NODE_TOKEN, body, contentType, query });
    return [res.status, res.status === 200 ? '' : (res.body.message ?? '')];
  };
  const stored = async (): Promise<Node> => structuredClone((await f.json<Node>('GET', OWN)).body);

  describe.each(changes.map((c) => [c.label, c] as const))('a node that %s', (_label, change) => {
    it('by PUT', async () => {
      const node = await stored();
      change.apply(node);
      expect(await outcome('PUT', OWN, node)).toEqual(change.expected);
    });
    it('by JSON patch', async () => {
      expect(await outcome('PATCH', OWN, change.jsonPatch, 'application/json-patch+json')).toEqual(change.expected);
    });
    it('by merge patch', async () => {
      expect(await outcome('PATCH', OWN, change.merge, 'application/merge-patch+json')).toEqual(change.expected);
    });
    it('by strategic merge patch (what kubectl taint, cordon and label send)', async () => {
      expect(await outcome('PATCH', OWN, change.merge, 'application/strategic-merge-patch+json')).toEqual(change.expected);
    });
    it('by server-side apply', async () => {
      const node = await stored();
      change.apply(node);
      const { metadata, spec } = node;
      const config = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1', labels: metadata.labels ?? {}, ownerReferences: metadata.ownerReferences }, spec };
      const before = await stored();
      const result = await outcome('PATCH', OWN, config, 'application/apply-patch+yaml', { fieldManager: 'kubelet', force: 'true' });
      if (!change.removes) return expect(result).toEqual(change.expected);
      expect(result).toEqual([200, '']);
      const after = await stored();
      expect([after.metadata.labels, after.spec]).toEqual([before.metadata.labels, before.spec]);
    });
  });

  it('writes its status, and a status write changes neither spec nor labels', async () => {
    const node = await stored();
    change(node);
    node.status = { conditions: [{ type: 'Ready', status: 'False' }] };
    expect(await outcome('PUT', `${OWN}/status`, node)).toEqual([200, '']);
    const merge = { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } }, spec: { taints: null, unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } };
    expect(await outcome('PATCH', `${OWN}/status`, merge, 'application/merge-patch+json')).toEqual([200, '']);
    const after = await stored();
    expect(after.status?.conditions?.[0]?.status).toBe('Unknown');
    expect([after.metadata.labels, after.spec]).toEqual([ownNode().metadata.labels, ownNode().spec]);

    function change(n: Node): void {
      n.spec = { unschedulable: true };
      n.metadata.labels = { 'node-role.kubernetes.io/control-plane': '' };
    }
  });

  it('keeps the pod range node IPAM gave it: the node may not change it, its status writes keep it, and nobody changes it once set', async () => {
    const range = { spec: { podCIDR: '127.64.3.0/24', podCIDRs: ['127.64.3.0/24'] } };
    expect((await f.json('PATCH', OWN, { body: range, contentType: 'application/merge-patch+json' })).status).toBe(200);
    expect(await outcome('PATCH', OWN, { spec: { podCIDR: '127.64.4.0/24', podCIDRs: ['127.64.4.0/24'] } }, 'application/merge-patch+json')).toEqual(refused('node "edge-1" is not allowed to modify podCIDR'));
    expect(await outcome('PATCH', OWN, { spec: { podCIDR: null, podCIDRs: null } }, 'application/merge-patch+json')).toEqual(refused('node "edge-1" is not allowed to modify podCIDR'));
    const heartbeat = await stored();
    heartbeat.spec = {};
    heartbeat.status = { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z' }] };
    expect(await outcome('PUT', `${OWN}/status`, heartbeat)).toEqual([200, '']);
    expect((await stored()).spec).toMatchObject(range.spec);
    const admin = await f.json<Body>('PATCH', OWN, { body: { spec: { podCIDRs: ['127.64.4.0/24'] } }, contentType: 'application/merge-patch+json' });
    expect([admin.status, admin.body.message]).toEqual([422, 'Node "edge-1" is invalid: spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']);
  });

  it('an admin gives a pod range only as a valid CIDR, one per IP family', async () => {
    const write = async (spec: unknown): Promise<[number, string]> => {
      const res = await f.json<Body>('PATCH', OWN, { body: { spec }, contentType: 'application/merge-patch+json' });
      return [res.status, res.body.message ?? ''];
    };
    expect(await write({ podCIDRs: ['127.64.3.0'] })).toEqual([422, 'Node "edge-1" is invalid: spec.podCIDRs[0]: Invalid value: "127.64.3.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
    expect(await write({ podCIDRs: ['10.0.0.0/24', '10.0.1.0/24'] })).toEqual([422, 'Node "edge-1" is invalid: spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.0.1.0/24"]: may specify no more than one CIDR for each IP family']);
    expect(await write({ podCIDR: '10.0.0.0/24' })).toEqual([200, '']);
    expect((await stored()).spec).toMatchObject({ podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'] });
  });

  it('an admin still taints, cordons and labels it', async () => {
    const merge = { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } }, spec: { taints: [], unschedulable: true } };
    expect((await f.json('PATCH', OWN, { body: merge, contentType: 'application/strategic-merge-patch+json' })).status).toBe(200);
    const after = await stored();
    expect(after.metadata.labels).toEqual({ ...ownNode().metadata.labels, 'node-role.kubernetes.io/control-plane': '' });
    expect([after.spec?.unschedulable, after.spec?.taints ?? []]).toEqual([true, []]);
  });
});

describe('NodeRestriction: what a node may register with', () => {
  let f: ApiFixture;
  beforeEach(async () => {
    f = await apiFixture();
  });
  const register = async (node: Node, how: 'create' | 'apply' = 'create'): Promise<[number, string]> => {
    const res =
      how === 'create'
        ? await f.json<Body>('POST', '/api/v1/nodes', { token: NODE_TOKEN, body: node })
        : await f.json<Body>('PATCH', `/api/v1/nodes/${node.metadata.name}`, { token: NODE_TOKEN, body: node, contentType: 'application/apply-patch+yaml', query: { fieldManager: 'kubelet' } });
    return [res.status, res.body.message ?? ''];
  };
  const withLabels = (extra: Record<string, string>, name = 'edge-1'): Node => ({ ...ownNode(), metadata: { name, labels: { 'kubernetes.io/hostname': name, ...extra } } });

  it.each(['create', 'apply'] as const)('refuses a registration (%s) with labels a kubelet may not set, naming them all', async (how) => {
    const node = withLabels({ 'node-role.kubernetes.io/control-plane': '', 'node-restriction.kubernetes.io/pool': 'a', 'k8s.io/anything': 'x', 'example.com/ok': 'y' });
    expect(await register(node, how)).toEqual([403, 'nodes "edge-1" is forbidden: node "edge-1" is not allowed to set the following labels: k8s.io/anything, node-restriction.kubernetes.io/pool, node-role.kubernetes.io/control-plane']);
    expect((await f.json('GET', OWN)).status).toBe(404);
  });

  it('registers itself with kubelet labels, its own labels and taints (--register-with-taints)', async () => {
    const node = withLabels({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubelet.kubernetes.io/x': '1', 'sub.node.kubernetes.io/y': '2', 'example.com/rack': 'r1' });
    node.spec = { taints: [taint] };
    expect((await register(node))[0]).toBe(201);
  });

  it('refuses a registration with a pod range (node IPAM gives it one)', async () => {
    const node = withLabels({});
    node.spec = { podCIDR: '127.64.9.0/24' };
    expect(await register(node)).toEqual([403, 'nodes "edge-1" is forbidden: node "edge-1" is not allowed to set podCIDR']);
  });

  it('registers no other node', async () => {
    const res = await f.json<Body>('POST', '/api/v1/nodes', { token: NODE_TOKEN, body: withLabels({}, 'edge-2') });
    expect([res.status, res.body.message]).toEqual([403, 'nodes is forbidden: User "system:node:edge-1" cannot create resource "nodes" in API group "" at the cluster scope']);
  });
});
