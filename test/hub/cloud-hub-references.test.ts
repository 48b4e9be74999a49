import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { DownMessage, ObjectRef } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { NodeDouble } from '../support/memory-peers.js';
import { MemorySync } from '../support/memory-sync.js';
import { pass } from '../support/settle.js';

const timing = { ...defaultTiming, resendMinMs: 2_000, resendMaxMs: 16_000 };
const configMaps = { resource: 'configmaps', namespace: 'default' };
const secrets = { resource: 'secrets', namespace: 'default' };
const pods = { resource: 'pods', namespace: 'default' };
const objectMessage = (m: DownMessage): m is Extract<DownMessage, { type: 'apply' | 'delete' }> => m.type === 'apply' || m.type === 'delete';
const line = (m: Extract<DownMessage, { type: 'apply' | 'delete' }>): string => `${m.type} ${m.ref.kind}/${m.ref.name}${m.type === 'apply' ? `@${m.ref.resourceVersion}` : ''}`;

/** A pod on `node` that reads ConfigMap `cfg` as env and mounts Secret `pw`. */
const referencing = (name: string, node: string): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName: node, containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'a' } } }] }], volumes: [{ name: 'pw', secret: { secretName: 'pw' } }] },
});

describe('the hub syncs the ConfigMaps and Secrets a node’s pods reference [SYNC-18]', () => {
  let sync: MemorySync;
  let api: FakeApiClient;
  let clock: FakeClock;
  let ledger: MemoryAckLedger;
  let hub: CloudHubHandle;
  const edges: NodeDouble[] = [];

  /** A node that said hello holding `holds`, and acks every object message it gets. */
  const node = async (name: string, holds: ObjectRef[] = []): Promise<NodeDouble> => {
    const e = await NodeDouble.connect(sync, name);
    edges.push(e);
    const h = await e.send({ type: 'hello', body: { bootId: 'b', holds } });
    await e.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced');
    return e;
  };
  /** What the node got since the last call, as lines; acks all of it. */
  const seen = new Map<NodeDouble, number>();
  const received = async (e: NodeDouble): Promise<string[]> => {
    await pass(clock, 100, 50);
    const fresh = e.received.slice(seen.get(e) ?? 0).filter(objectMessage);
    seen.set(e, e.received.length);
    for (const m of fresh) await e.send({ type: 'ack', parentId: m.id });
    await pass(clock, 100, 50);
    return fresh.map(line);
  };
  const cm = (value: string): ConfigMap => ({ metadata: { name: 'cfg', namespace: 'default' }, data: { a: value } });

  beforeEach(async () => {
    api = new FakeApiClient();
    clock = new FakeClock();
    sync = new MemorySync({ clock, timing });
    ledger = new MemoryAckLedger();
    hub = await startCloudHub({ api, apiAsNode: () => api, ...sync.cloudLink(), clock, timing, logger: silentLogger, ledger });
  });
  afterEach(async () => {
    await Promise.all(edges.splice(0).map((e) => e.close()));
    await hub.close();
    await sync.close();
  });

  it('sends what a pod references before the pod, updates it, and tombstones it with the last pod', async () => {
    const c1 = await api.create<ConfigMap>(configMaps, cm('1'));
    const s1 = await api.create<Secret>(secrets, { metadata: { name: 'pw', namespace: 'default' }, data: { p: 'cHc=' } });
    const e1 = await node('edge-1');
    const e2 = await node('edge-2');
    await api.create(pods, referencing('web', 'edge-1'));
    expect(await received(e1)).toEqual([`apply ConfigMap/cfg@${c1.metadata.resourceVersion}`, `apply Secret/pw@${s1.metadata.resourceVersion}`, expect.stringMatching(/^apply Pod\/web@/)]);
    expect(await received(e2)).toEqual([]);

    const c2 = await api.replace<ConfigMap>({ ...configMaps, name: 'cfg' }, { ...c1, data: { a: '2' } });
    expect(await received(e1)).toEqual([`apply ConfigMap/cfg@${c2.metadata.resourceVersion}`]);
    expect(await received(e2)).toEqual([]);
    expect(ledger.get('edge-1', c1.metadata.uid!)?.resourceVersion).toBe(c2.metadata.resourceVersion);

    await api.create(pods, referencing('second', 'edge-1'));
    expect(await received(e1)).toEqual([expect.stringMatching(/^apply Pod\/second@/)]); // held already
    await api.delete({ ...pods, name: 'web' });
    expect(await received(e1)).toEqual(['delete Pod/web']);
    await api.delete({ ...pods, name: 'second' });
    expect(await received(e1)).toEqual(['delete Pod/second', 'delete ConfigMap/cfg', 'delete Secret/pw']);
    expect([...ledger.held('edge-1').keys()]).toEqual([]);
  });

  it('by name: created after its pod, and re-created under its name, it reaches the node', async () => {
    const e1 = await node('edge-1');
    await api.create(pods, referencing('web', 'edge-1'));
    expect(await received(e1)).toEqual([expect.stringMatching(/^apply Pod\/web@/)]);
    const first = await api.create<ConfigMap>(configMaps, cm('1'));
    expect(await received(e1)).toEqual([`apply ConfigMap/cfg@${first.metadata.resourceVersion}`]);
    await api.delete({ ...configMaps, name: 'cfg' });
    const again = await api.create<ConfigMap>(configMaps, cm('2'));
    const lines = await received(e1);
    expect(lines).toEqual(['delete ConfigMap/cfg', `apply ConfigMap/cfg@${again.metadata.resourceVersion}`]);
    expect(ledger.get('edge-1', again.metadata.uid!)).toBeDefined();
    expect(ledger.get('edge-1', first.metadata.uid!)).toBeUndefined();
  });

  it('a hello gets exactly the difference: a ConfigMap changed and one no pod references any more', async () => {
    const c1 = await api.create<ConfigMap>(configMaps, cm('1'));
    await api.create(pods, referencing('web', 'edge-1'));
    const pod = await api.get<Pod>({ ...pods, name: 'web' });
    const c2 = await api.replace<ConfigMap>({ ...configMaps, name: 'cfg' }, { ...c1, data: { a: '2' } });
    const held = (kind: string, o: { metadata: Pod['metadata'] }): ObjectRef => ({ kind, namespace: 'default', name: o.metadata.name!, uid: o.metadata.uid!, resourceVersion: o.metadata.resourceVersion! });
    const e1 = await node('edge-1', [held('Pod', pod), held('ConfigMap', c1), { kind: 'Secret', namespace: 'default', name: 'old', uid: 'gone', resourceVersion: '1' }]);
    expect(e1.received.filter(objectMessage).map(line)).toEqual(['delete Secret/old', `apply ConfigMap/cfg@${c2.metadata.resourceVersion}`]);
  });
});
